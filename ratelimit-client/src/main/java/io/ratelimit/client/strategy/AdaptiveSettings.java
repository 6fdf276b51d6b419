package io.ratelimit.client.strategy;

/**
 * The parameters of the adaptive token bucket (ATB) and of its assisted variant, with rates
 * in requests per second. The defaults are those of the CCNC 2026 study's real-trace setting.
 *
 * @param initialRate the rate a target starts at
 * @param initialCongestionRate the rate assumed to have caused congestion before any did
 * @param floorRate the lowest rate a refusal may cut to ({@code σ})
 * @param floorJitter the half-width of the random term added to the floor after a refusal
 * @param step the additive increase on success ({@code δ})
 * @param belowCongestionFactor the multiplicative increase while below the last congestion
 * rate, or, in the assisted variant, while this client's load is light ({@code α})
 * @param aboveCongestionFactor the multiplicative increase otherwise ({@code β})
 * @param bucketSize the most tokens the caller's bucket holds
 * @param initialTokens the tokens a target starts with
 */
public record AdaptiveSettings(double initialRate, double initialCongestionRate, double floorRate, double floorJitter,
		double step, double belowCongestionFactor, double aboveCongestionFactor, double bucketSize,
		double initialTokens) {

	private static final double PER_MINUTE = 1.0 / 60;

	public AdaptiveSettings {
		requirePositive(initialRate, "initialRate");
		requirePositive(initialCongestionRate, "initialCongestionRate");
		requirePositive(floorRate, "floorRate");
		if (!(floorJitter >= 0 && floorJitter < floorRate)) {
			throw new IllegalArgumentException(
					"floorJitter must be at least 0 and below floorRate (" + floorRate + "), but was " + floorJitter);
		}
		requirePositive(step, "step");
		if (!(belowCongestionFactor >= 1) || !(aboveCongestionFactor >= 1)) {
			throw new IllegalArgumentException("The increase factors must be at least 1, but were "
					+ belowCongestionFactor + " and " + aboveCongestionFactor);
		}
		if (!(bucketSize >= 1)) {
			throw new IllegalArgumentException("bucketSize must be at least 1, but was " + bucketSize);
		}
		if (!(initialTokens >= 0 && initialTokens <= bucketSize)) {
			throw new IllegalArgumentException(
					"initialTokens must be between 0 and bucketSize (" + bucketSize + "), but was " + initialTokens);
		}
	}

	private static void requirePositive(double value, String name) {
		if (!(value > 0) || Double.isInfinite(value)) {
			throw new IllegalArgumentException(name + " must be a positive rate, but was " + value);
		}
	}

	/**
	 * Returns the ATB parameters of the study: σ = δ = 0.6/min, α = β = 1.2, one initial
	 * token in a bucket of 15, an initial rate of 15/min and an initial congestion rate of
	 * 30/min.
	 * @return the default ATB parameters
	 */
	public static AdaptiveSettings defaults() {
		return new AdaptiveSettings(15 * PER_MINUTE, 30 * PER_MINUTE, 0.6 * PER_MINUTE, 0.5 * PER_MINUTE,
				0.6 * PER_MINUTE, 1.2, 1.2, 15, 1);
	}

	/**
	 * Returns the parameters of the assisted variant in the study: as ATB, with α = 1.4.
	 * @return the default AATB parameters
	 */
	public static AdaptiveSettings assistedDefaults() {
		AdaptiveSettings atb = defaults();
		return new AdaptiveSettings(atb.initialRate, atb.initialCongestionRate, atb.floorRate, atb.floorJitter,
				atb.step, 1.4, 1.2, atb.bucketSize, atb.initialTokens);
	}

}
