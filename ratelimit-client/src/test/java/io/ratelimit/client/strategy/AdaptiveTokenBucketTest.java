package io.ratelimit.client.strategy;

import org.junit.jupiter.api.Test;

import static io.ratelimit.client.strategy.Responses.SECOND;
import static io.ratelimit.client.strategy.Responses.ok;
import static io.ratelimit.client.strategy.Responses.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * ATB step by step with the study's parameters (rates per minute in the comments): one
 * initial token, 15/min, congestion rate 30/min, σ = δ = 0.6/min, α = β = 1.2, bucket 15.
 */
class AdaptiveTokenBucketTest {

	private static final double PER_MINUTE = 1.0 / 60;

	private final AdaptiveTokenBucket atb = new AdaptiveTokenBucket(AdaptiveSettings.defaults(), new MaximalRandom(), 0);

	@Test
	void tryAcquireWhenOneInitialTokenThenSecondWaitsForRefill() {
		assertThat(this.atb.tryAcquire(0)).isZero();
		assertThat(this.atb.tryAcquire(0)).as("one token at 15/min: 4 s").isEqualTo(4 * SECOND);
		assertThat(this.atb.tryAcquire(4 * SECOND)).isZero();
	}

	@Test
	void onFeedbackWhenSuccessThenRateGrowsByLargerOfStepAndFactor() {
		this.atb.onFeedback(0, ok()); // max(15 + 0.6, 15 * 1.2) = 18
		assertThat(this.atb.rate()).isCloseTo(18 * PER_MINUTE, within(1e-9));
		AdaptiveTokenBucket slow = new AdaptiveTokenBucket(new AdaptiveSettings(1 * PER_MINUTE, 30 * PER_MINUTE,
				0.6 * PER_MINUTE, 0.5 * PER_MINUTE, 0.6 * PER_MINUTE, 1.2, 1.2, 15, 1), new MaximalRandom(), 0);
		slow.onFeedback(0, ok()); // max(1 + 0.6, 1 * 1.2) = 1.6
		assertThat(slow.rate()).isCloseTo(1.6 * PER_MINUTE, within(1e-9));
	}

	@Test
	void onFeedbackWhenRefusedThenRateHalvesBucketEmptiesAndCongestionRateRemembered() {
		this.atb.onFeedback(0, ok()); // 18
		this.atb.onFeedback(0, ok()); // 21.6
		this.atb.onFeedback(0, refused()); // congestion at 21.6, rate max(0.6 + ~0.5, 10.8)

		assertThat(this.atb.rate()).isCloseTo(10.8 * PER_MINUTE, within(1e-9));
		assertThat(this.atb.tryAcquire(0)).as("bucket emptied: one token at 10.8/min").isEqualTo(
				(long) Math.ceil(60 / 10.8 * SECOND));
	}

	@Test
	void onFeedbackWhenRefusedAtLowRateThenFloorWithJitter() {
		AdaptiveTokenBucket slow = new AdaptiveTokenBucket(new AdaptiveSettings(1 * PER_MINUTE, 30 * PER_MINUTE,
				0.6 * PER_MINUTE, 0.5 * PER_MINUTE, 0.6 * PER_MINUTE, 1.2, 1.2, 15, 1), new MaximalRandom(), 0);
		slow.onFeedback(0, refused()); // max(0.6 + 0.5, 0.5) = 1.1 with the jitter at its top

		assertThat(slow.rate()).isCloseTo(1.1 * PER_MINUTE, within(1e-6));
	}

	@Test
	void onFeedbackWhenSuccessAboveCongestionRateThenBetaApplies() {
		AdaptiveTokenBucket atb = new AdaptiveTokenBucket(new AdaptiveSettings(15 * PER_MINUTE, 10 * PER_MINUTE,
				0.6 * PER_MINUTE, 0.5 * PER_MINUTE, 0.6 * PER_MINUTE, 2, 1.1, 15, 1), new MaximalRandom(), 0);
		atb.onFeedback(0, ok()); // 15 >= 10: max(15.6, 16.5)

		assertThat(atb.rate()).isCloseTo(16.5 * PER_MINUTE, within(1e-9));
	}

}
