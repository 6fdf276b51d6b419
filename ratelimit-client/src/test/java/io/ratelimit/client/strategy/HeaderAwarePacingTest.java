package io.ratelimit.client.strategy;

import java.util.Map;

import io.ratelimit.client.Feedback;
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
		// 19 left as far as the server will know: (19/20)^3 of 4/3 per second.
		assertThat(this.pacing.tryAcquire(0)).isCloseTo((long) (0.75e9 / Math.pow(0.95, 3)), MILLISECOND);
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

	@Test
	void tryAcquireWhenRequestsInFlightThenCountedAgainstRemaining() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(99, 100, 75));
		long now = 0;
		int sent = 0;
		long wait;
		// Sent with no response back: each one counts against the 99 the server reported.
		while ((wait = this.pacing.tryAcquire(now)) < 100_000_000L && sent < 500) {
			now += wait;
			sent += (wait == 0) ? 1 : 0;
		}

		// Slower than 10 a second once about 39 are left as the server will see them.
		assertThat(sent).isBetween(55, 65);
	}

	@Test
	void tryAcquireWhenQuotaOfOneThenNeverWaitsLongerThanItsRefill() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(0, 1, 1));
		this.pacing.tryAcquire(0);
		assertThat(this.pacing.tryAcquire(0)).as("a token a second, not 64 s").isLessThanOrEqualTo(SECOND);

		this.pacing.onFeedback(SECOND, refused(1, 1, 1));
		long held = this.pacing.tryAcquire(SECOND);
		assertThat(held).as("Retry-After 1 s plus at most 2 s of jitter").isLessThanOrEqualTo(3 * SECOND);
		assertThat(this.pacing.tryAcquire(SECOND + held)).isZero();
		assertThat(this.pacing.tryAcquire(SECOND + held)).as("the cut rate: half a token a second")
			.isLessThanOrEqualTo(2 * SECOND);
	}

	@Test
	void onFeedbackWhenIoErrorThenStaysInformed() {
		this.pacing.tryAcquire(0);
		this.pacing.onFeedback(0, ok(0, 100, 75));
		this.pacing.tryAcquire(0);

		this.pacing.onFeedback(0, io.ratelimit.client.Feedback.noResponse());

		assertThat(this.pacing.tryAcquire(0)).as("still paced by the fields, not the fallback's tokens")
			.isEqualTo(48 * SECOND);
	}

	@Test
	void tryAcquireWhenSeveralLimitsThenPacesByTheTightest() {
		HeaderAwarePacing layered = new HeaderAwarePacing(AdaptiveSettings.defaults(), new MaximalRandom(), 0);
		HeaderAwarePacing hourlyAlone = new HeaderAwarePacing(AdaptiveSettings.defaults(), new MaximalRandom(), 0);
		layered.tryAcquire(0);
		hourlyAlone.tryAcquire(0);
		// Per second the endpoint has plenty; across the API 8 of 50 an hour are left.
		layered.onFeedback(0, Feedback.of(200, Map.of("RateLimit", "\"default\";r=19;t=1, \"hourly\";r=8;t=72",
				"RateLimit-Policy", "\"default\";q=20;w=2, \"hourly\";q=50;w=3600")::get, 0));
		hourlyAlone.onFeedback(0, Feedback.of(200,
				Map.of("RateLimit", "\"hourly\";r=8;t=72", "RateLimit-Policy", "\"hourly\";q=50;w=3600")::get, 0));

		assertThat(layered.tryAcquire(0)).as("the one token a caller keeps").isZero();
		hourlyAlone.tryAcquire(0);
		assertThat(layered.tryAcquire(0)).as("7 left of a reserve of 10: (7/10)^3 of 50 an hour")
			.isEqualTo(hourlyAlone.tryAcquire(0))
			.isCloseTo((long) (72e9 / Math.pow(0.7, 3)), MILLISECOND);
	}

}
