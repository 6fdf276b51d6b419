package io.ratelimit.core.bucket;

import java.math.BigDecimal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clocks read by different threads reach the doorkeeper out of order: a request that read
 * the clock earlier may find a first request recorded with a later time, which must count
 * as just made, not as refilled long ago. Only a thread that is held up between reading the
 * clock and reaching the doorkeeper sees this, so it is shown here on the doorkeeper
 * itself.
 */
class DoorkeeperTest {

	/** 10 requests per second, burst factor 2: one request is refilled in 0.1 s. */
	private static final BucketLimits TEN_PER_SECOND = BucketLimits.of(BigDecimal.TEN, BigDecimal.valueOf(2), 1);

	private static final long START = 5_000_000_000L;

	private static final long LATER = START + 1_000_000; // 1 ms

	private final Doorkeeper doorkeeper = new Doorkeeper(100, START);

	@Test
	void enterWhenOwnFirstRequestAheadOfTheClockThenCharged() {
		BucketKey key = new BucketKey(1, ~1L);
		assertThat(this.doorkeeper.enter(key, 3, LATER, TEN_PER_SECOND)).isEqualTo(Doorkeeper.FIRST_REQUEST);

		long firstRequest = this.doorkeeper.enter(key, 1, START, TEN_PER_SECOND);

		assertThat(Doorkeeper.tokensOf(firstRequest)).isEqualTo(3);
		assertThat(this.doorkeeper.nanosOf(firstRequest, START)).isEqualTo(START);
	}

	@Test
	void enterWhenAnotherKeysFirstRequestAheadOfTheClockThenItKeepsTheSlot() {
		BucketKey key = new BucketKey(1, ~1L);
		BucketKey sharing = new BucketKey(129, ~129L); // the same slot of 128
		assertThat(this.doorkeeper.enter(key, 1, LATER, TEN_PER_SECOND)).isEqualTo(Doorkeeper.FIRST_REQUEST);

		assertThat(this.doorkeeper.enter(sharing, 1, START, TEN_PER_SECOND)).isEqualTo(Doorkeeper.NOTHING_TO_CHARGE);
		assertThat(Doorkeeper.tokensOf(this.doorkeeper.enter(key, 1, LATER, TEN_PER_SECOND))).isEqualTo(1);
	}

}
