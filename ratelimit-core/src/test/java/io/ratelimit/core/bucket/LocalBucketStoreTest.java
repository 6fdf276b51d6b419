package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LocalBucketStoreTest extends BucketStoreContract {

	@Override
	protected BucketStore newStore(long maximumEntries) {
		return LocalBucketStore.create(maximumEntries, this.time);
	}

	/**
	 * A million invented keys through a store capped at 100,000 leave at most 100,000
	 * buckets, and a key used between them keeps its (empty) bucket: churning others cannot
	 * reset it.
	 */
	@Test
	void tryConsumeWhenMillionKeysChurnThenBoundedAndHotKeyKeepsItsState() {
		BucketStore store = newStore(100_000);
		BucketLimits slow = BucketLimits.of(BigDecimal.ONE, BigDecimal.ONE, 1);
		BucketKey hot = key(-1);
		assertThat(store.tryConsume(hot, slow, 1).consumed()).isTrue(); // now empty
		SplittableRandom random = new SplittableRandom(7);

		for (int i = 0; i < 1_000_000; i++) {
			store.tryConsume(new BucketKey(random.nextLong(), random.nextLong()), slow, 1);
			if (i % 100 == 0) {
				assertThat(store.tryConsume(hot, slow, 1).consumed()).as("hot key reset after %d churn keys", i)
					.isFalse();
			}
		}

		BucketStoreStats stats = store.stats();
		assertThat(stats.entries()).isLessThanOrEqualTo(100_000);
		assertThat(stats.evictions()).isGreaterThanOrEqualTo(900_000);
		assertThat(store.tryConsume(hot, slow, 1).consumed()).isFalse();
	}

	@Test
	void statsWhenIdleLongerThanRefillPeriodThenBucketDroppedLosingNothing() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20); // refills completely in 2 s

		this.time.advance(Duration.ofMillis(3900));
		assertThat(store.stats().entries()).isEqualTo(1);
		// Past the refill period, the two-second margin and a step of Caffeine's timer wheel (1.07 s).
		this.time.advance(Duration.ofMillis(1200));
		assertThat(store.stats().entries()).isZero();
		assertThat(store.stats().evictions()).isEqualTo(1);
	}

	/**
	 * Caffeine ignores expiry updates of a second or less; a bucket read one second after it
	 * was drained must still not be forgotten before it is full.
	 */
	@Test
	void tryConsumeWhenUsedOneSecondAfterDrainThenNotResetBeforeFull() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20); // refills completely in 2 s
		this.time.advance(Duration.ofSeconds(1));
		store.tryConsume(key(1), TEN_PER_SECOND, 10); // 0 left again

		this.time.advance(Duration.ofMillis(1100));

		Consumption consumption = store.tryConsume(key(1), TEN_PER_SECOND, 1);
		assertThat(consumption.remainingTokens()).isEqualTo(10);
		assertThat(store.stats().evictions()).isZero();
	}

	/**
	 * The store records at most one access a second, and Caffeine ignores expiry updates of
	 * a second or less: a bucket drained again between recorded accesses must still not be
	 * forgotten before it is full.
	 */
	@Test
	void tryConsumeWhenDrainedBetweenRecordedAccessesThenNotResetBeforeFull() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20); // refills completely in 2 s
		this.time.advance(Duration.ofMillis(900));
		store.tryConsume(key(1), TEN_PER_SECOND, 9); // 0 left
		this.time.advance(Duration.ofMillis(100));
		store.tryConsume(key(1), TEN_PER_SECOND, 1); // 0 left; recorded, but Caffeine skips a one-second move
		this.time.advance(Duration.ofMillis(900));
		store.tryConsume(key(1), TEN_PER_SECOND, 9); // 0 left, full again 2 s from now

		this.time.advance(Duration.ofMillis(1950));

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 20).consumed()).isFalse();
		assertThat(store.stats().evictions()).isZero();
	}

	@Test
	void statsWhenBucketUsedAgainBeforeFullThenKept() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20);
		this.time.advance(Duration.ofMillis(1500));
		store.tryConsume(key(1), TEN_PER_SECOND, 15); // 0 left again

		this.time.advance(Duration.ofMillis(1500));

		assertThat(store.stats().entries()).isEqualTo(1);
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 16).consumed()).isFalse();
	}

	@Test
	void createWhenMaximumNotPositiveThenRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LocalBucketStore.create(0, this.time))
			.withMessage("The maximum number of buckets must be positive, but was 0");
	}

}
