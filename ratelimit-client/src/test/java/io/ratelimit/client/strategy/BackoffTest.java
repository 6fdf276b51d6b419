package io.ratelimit.client.strategy;

import java.time.Duration;

import io.ratelimit.client.Pacing;
import org.junit.jupiter.api.Test;

import static io.ratelimit.client.strategy.Responses.SECOND;
import static io.ratelimit.client.strategy.Responses.ok;
import static io.ratelimit.client.strategy.Responses.refused;
import static org.assertj.core.api.Assertions.assertThat;

/** UB and WB on a virtual clock, with jitter at the top of its range. */
class BackoffTest {

	private static final BackoffSettings SETTINGS = new BackoffSettings(Duration.ofSeconds(1), Duration.ofSeconds(30),
			Duration.ofSeconds(30));

	@Test
	void unlimitedBackoffWhenRefusedInRowThenBoundDoublesUpToCapAndSuccessResets() {
		Pacing backoff = new UnlimitedBackoff(SETTINGS, new MaximalRandom());
		long now = 0;
		assertThat(backoff.tryAcquire(now)).isZero();
		assertThat(backoff.tryAcquire(now)).as("no refusal, no limit").isZero();
		long[] expectedBounds = { 1, 2, 4, 8, 16, 30, 30 };
		for (long bound : expectedBounds) {
			backoff.onFeedback(now, refused());
			assertThat(backoff.tryAcquire(now)).isEqualTo(bound * SECOND);
		}
		backoff.onFeedback(now, ok());
		now += 30 * SECOND;
		assertThat(backoff.tryAcquire(now)).isZero();
		backoff.onFeedback(now, refused());
		assertThat(backoff.tryAcquire(now)).as("bound after a success").isEqualTo(SECOND);
	}

	@Test
	void unlimitedBackoffWhenIoErrorThenNoChange() {
		Pacing backoff = new UnlimitedBackoff(SETTINGS, new MaximalRandom());
		backoff.onFeedback(0, refused());
		backoff.onFeedback(0, io.ratelimit.client.Feedback.noResponse());
		backoff.onFeedback(SECOND, refused());
		assertThat(backoff.tryAcquire(SECOND)).as("still the second refusal in a row").isEqualTo(2 * SECOND);
	}

	@Test
	void windowedBackoffWhenWindowFullThenWaitsForOldestToLeave() {
		Pacing windowed = new WindowedBackoff(SETTINGS, 3, 60 * SECOND, new MaximalRandom());
		assertThat(windowed.tryAcquire(0)).isZero();
		assertThat(windowed.tryAcquire(10 * SECOND)).isZero();
		assertThat(windowed.tryAcquire(20 * SECOND)).isZero();

		assertThat(windowed.tryAcquire(30 * SECOND)).isEqualTo(30 * SECOND);
		assertThat(windowed.tryAcquire(60 * SECOND)).isZero();
		assertThat(windowed.tryAcquire(61 * SECOND)).isEqualTo(9 * SECOND);
	}

}
