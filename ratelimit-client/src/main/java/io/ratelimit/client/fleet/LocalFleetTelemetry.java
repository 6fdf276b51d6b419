package io.ratelimit.client.fleet;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.ratelimit.client.PacingClock;
import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * Telemetry shared by the clients of one process: for clients that share a JVM (one per
 * tenant, say), and for experiments on a virtual clock. Windows are counted on the clock's
 * wall time, like {@link RedisFleetTelemetry}'s.
 */
public final class LocalFleetTelemetry implements FleetTelemetry {

	private final PacingClock clock;

	private final long windowMillis;

	private final Map<Target, Windows> targets = new HashMap<>();

	/**
	 * Creates telemetry with the given window.
	 * @param clock the clock whose wall time numbers the windows
	 * @param window the length of a window, the clients' report interval
	 */
	public LocalFleetTelemetry(PacingClock clock, Duration window) {
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.windowMillis = FleetWindows.requireWindow(window);
	}

	@Override
	public synchronized void report(Target target, String clientId, long requests, boolean congested) {
		Window window = windows(target).current(this.clock.currentTimeMillis() / this.windowMillis);
		window.clients.add(clientId);
		window.requests += requests;
		if (congested) {
			window.congested.add(clientId);
		}
	}

	@Override
	public synchronized void reportCongestion(Target target, String clientId) {
		windows(target).current(this.clock.currentTimeMillis() / this.windowMillis).congested.add(clientId);
	}

	@Override
	public synchronized @Nullable FleetView view(Target target) {
		Windows windows = this.targets.get(target);
		if (windows == null) {
			return null;
		}
		long index = this.clock.currentTimeMillis() / this.windowMillis;
		Window current = windows.current(index);
		Window previous = windows.previous;
		if (previous == null || previous.index != index - 1) {
			return current.congested.isEmpty() ? null : new FleetView(0, 0, current.congested.size());
		}
		Set<String> congested = new HashSet<>(previous.congested);
		congested.addAll(current.congested);
		return new FleetView(previous.clients.size(), previous.requests, congested.size());
	}

	private Windows windows(Target target) {
		return this.targets.computeIfAbsent(target, (key) -> new Windows());
	}

	private static final class Windows {

		private @Nullable Window previous;

		private @Nullable Window current;

		Window current(long index) {
			if (this.current == null || this.current.index != index) {
				this.previous = (this.current != null && this.current.index == index - 1) ? this.current : null;
				this.current = new Window(index);
			}
			return this.current;
		}

	}

	private static final class Window {

		private final long index;

		private final Set<String> clients = new HashSet<>();

		private final Set<String> congested = new HashSet<>();

		private long requests;

		Window(long index) {
			this.index = index;
		}

	}

}
