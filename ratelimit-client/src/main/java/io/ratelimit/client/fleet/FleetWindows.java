package io.ratelimit.client.fleet;

import java.time.Duration;
import java.util.Objects;

/** The argument check both telemetries share. */
final class FleetWindows {

	private FleetWindows() {
	}

	static long requireWindow(Duration window) {
		Objects.requireNonNull(window, "window must not be null");
		if (window.toMillis() < 1) {
			throw new IllegalArgumentException("The telemetry window must be at least 1 ms, but was " + window);
		}
		return window.toMillis();
	}

}
