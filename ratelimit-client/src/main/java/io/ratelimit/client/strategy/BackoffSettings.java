package io.ratelimit.client.strategy;

import java.time.Duration;
import java.util.Objects;

/**
 * The shape of an exponential backoff: after the n-th refusal in a row the next request
 * waits a random time in {@code [0, min(initialBound * 2^(n-1), cap)]}, where the cap is
 * drawn once per target from {@code [minimumCap, maximumCap]}.
 *
 * @param initialBound the bound of the first wait
 * @param minimumCap the smallest cap of the bound
 * @param maximumCap the largest cap of the bound
 */
public record BackoffSettings(Duration initialBound, Duration minimumCap, Duration maximumCap) {

	public BackoffSettings {
		Objects.requireNonNull(initialBound, "initialBound must not be null");
		Objects.requireNonNull(minimumCap, "minimumCap must not be null");
		Objects.requireNonNull(maximumCap, "maximumCap must not be null");
		if (initialBound.isNegative() || initialBound.isZero()) {
			throw new IllegalArgumentException("initialBound must be positive, but was " + initialBound);
		}
		if (minimumCap.compareTo(initialBound) < 0) {
			throw new IllegalArgumentException(
					"minimumCap must be at least initialBound (" + initialBound + "), but was " + minimumCap);
		}
		if (maximumCap.compareTo(minimumCap) < 0) {
			throw new IllegalArgumentException(
					"maximumCap must be at least minimumCap (" + minimumCap + "), but was " + maximumCap);
		}
	}

	/**
	 * Returns the backoff of the CCNC 2026 study's baselines: a first bound of one second,
	 * capped between 30 and 34 seconds.
	 * @return the default backoff
	 */
	public static BackoffSettings defaults() {
		return new BackoffSettings(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(34));
	}

}
