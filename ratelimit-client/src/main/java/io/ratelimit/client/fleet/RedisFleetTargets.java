package io.ratelimit.client.fleet;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.client.Target;

/**
 * The targets one {@link RedisFleetTelemetry} knows, by target and by tag for the refusals it
 * hears of. A target unused for longer than its keys live in Redis is forgotten, so that an
 * application calling many endpoints over time does not accumulate them.
 */
final class RedisFleetTargets {

	private final long windowMillis;

	private final long keptMillis;

	private final Map<Target, RedisFleetTarget> byTarget = new ConcurrentHashMap<>();

	private final Map<String, RedisFleetTarget> byTag = new ConcurrentHashMap<>();

	private final AtomicLong sweptWindow = new AtomicLong(Long.MIN_VALUE);

	RedisFleetTargets(long windowMillis, long keptMillis) {
		this.windowMillis = windowMillis;
		this.keptMillis = keptMillis;
	}

	/**
	 * Returns the state of a target, marked as used now.
	 * @param target the target
	 * @param nowMillis the wall time
	 * @return the state
	 */
	RedisFleetTarget get(Target target, long nowMillis) {
		forgetIdle(nowMillis);
		RedisFleetTarget state = this.byTarget.get(target);
		if (state == null) {
			state = this.byTarget.computeIfAbsent(target, (key) -> {
				RedisFleetTarget created = new RedisFleetTarget(RedisFleetKeys.tag(key));
				this.byTag.put(created.tag(), created);
				return created;
			});
		}
		state.used(nowMillis);
		return state;
	}

	/**
	 * Records a refusal published by any process; one for a target this process does not
	 * pace is of no use to it.
	 * @param message the message on the congestion channel
	 */
	void heard(String message) {
		RedisFleetKeys.Congestion congestion = RedisFleetKeys.parse(message);
		if (congestion == null) {
			return;
		}
		RedisFleetTarget state = this.byTag.get(congestion.tag());
		if (state != null) {
			state.hear(congestion.window(), congestion.clientId());
		}
	}

	/** Sweeps once a window, on whichever call comes first. */
	private void forgetIdle(long nowMillis) {
		long window = nowMillis / this.windowMillis;
		long swept = this.sweptWindow.get();
		if (swept == window || !this.sweptWindow.compareAndSet(swept, window)) {
			return;
		}
		long idleSince = nowMillis - this.keptMillis;
		this.byTarget.values().removeIf((state) -> {
			boolean idle = state.usedAt() < idleSince;
			if (idle) {
				this.byTag.remove(state.tag(), state);
			}
			return idle;
		});
	}

}
