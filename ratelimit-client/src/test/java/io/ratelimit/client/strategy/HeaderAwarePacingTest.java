package io.ratelimit.client.strategy;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

import static io.ratelimit.client.strategy.Responses.SECOND;
import static io.ratelimit.client.strategy.Responses.ok;
import static io.ratelimit.client.strategy.Responses.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The header-aware strategy on a virtual clock against a policy of 100 per 75 s (the
 * experiment's 80/min with a burst of 100): reserve 20, sustained rate 4/3 per second.
 */
class HeaderAwarePacingTest {

	private static final Offset<Long> MILLISECOND = within(1_000_000L);

	private final HeaderAwarePacing pacing = new HeaderAwarePacing(AdaptiveSettings.defaults(), new MaximalRandom(), 0);

	@Test
	void tryAcquireWhenServerSendsNoFieldsThenAdaptiveTokenBucket() {
		assertThat(this.pacing.tryAcquire(0)).isZero();
		this.pacing.onFeedback(0, ok());

		assertThat(this.pacing.tryAcquire(0)).as("ATB: one token at 18/min").isEqualTo((long) Math.ceil(60.0 / 18 * SECOND));
	}

	@Test
	void tryAcquireWhenRemainingAtReserveThenPolicyRate() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(20, 100, 75));

		assertThat(this.pacing.tryAcquire(0)).as("the one token a caller keeps").isZero();
		assertThat(this.pacing.tryAcquire(0)).as("then 4/3 per second").isEqualTo(750_000_000L);
	}

	@Test
	void tryAcquireWhenPlentyRemainingThenGoesAlmostAtOnce() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(99, 100, 75));
		this.pacing.tryAcquire(0);

		assertThat(this.pacing.tryAcquire(0)).as("(99/20)^3 * 4/3 per second").isLessThan(10_000_000L);
	}

	@Test
	void tryAcquireWhenNothingRemainingThenProbesAtFloor() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(0, 100, 75));
		this.pacing.tryAcquire(0);

		assertThat(this.pacing.tryAcquire(0)).as("1/64 of 4/3 per second: 48 s").isEqualTo(48 * SECOND);
	}

	@Test
	void tryAcquireWhenRefusedInRowThenRetryAfterPlusDoublingSpread() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, refused(1, 100, 75));
		assertThat(this.pacing.tryAcquire(0)).as("1 s + 2 / (4/3) s").isCloseTo(2_500_000_000L, MILLISECOND);

		this.pacing.onFeedback(0, refused(1, 100, 75));
		assertThat(this.pacing.tryAcquire(0)).as("1 s + 4 / (4/3) s").isCloseTo(4 * SECOND, MILLISECOND);

		for (int i = 0; i < 10; i++) {
			this.pacing.onFeedback(0, refused(1, 100, 75));
		}
		assertThat(this.pacing.tryAcquire(0)).as("spread capped at 16 s").isCloseTo(17 * SECOND, MILLISECOND);
	}

}
