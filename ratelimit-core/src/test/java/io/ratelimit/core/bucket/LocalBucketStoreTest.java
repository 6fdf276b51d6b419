package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LocalBucketStoreTest extends BucketStoreContract {

	@Override
	protected BucketStore newStore(long maximumEntries) {
		return LocalBucketStore.create(maximumEntries, this.time);
	}

	/**
	 * A bucket the cache has evicted is never charged again, however recently it was used:
	 * the key's next request finds no bucket and is answered as a first request.
	 */
	@Test
	void tryConsumeWhenRecentlyUsedBucketEvictedThenKeyStartsAfresh() {
		BucketStore store = newStore(1);
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.0001"), BigDecimal.ONE, 1);
		BucketKey spent = new BucketKey(1, 1);
		store.tryConsume(spent, slow, 1);
		assertThat(store.tryConsume(spent, slow, 1).consumed()).isFalse(); // a bucket, empty
		// Keys used more often than the spent one, in other slots of the table of recent buckets.
		for (int i = 2; store.stats().evictions() == 0 && i < 1000; i++) {
			for (int j = 0; j < 5; j++) {
				store.tryConsume(new BucketKey(i, 2), slow, 1);
			}
		}
		assertThat(store.stats().evictions()).isPositive();

		Consumption afresh = store.tryConsume(spent, slow, 1);

		assertThat(afresh.consumed()).isTrue();
		assertThat(afresh.remainingTokens()).isZero();
	}

	/**
	 * A recently used bucket that has expired is not charged while the cache still holds
	 * it: the charge would be lost with it. The key's next request is its first again, and
	 * the one after that is charged for both.
	 */
	@Test
	void tryConsumeWhenRecentlyUsedBucketExpiredThenNoChargeIsLostWithIt() {
		BucketStore store = newStore(10);
		BucketLimits onePerSecond = BucketLimits.of(BigDecimal.ONE, BigDecimal.valueOf(2), 1);
		store.tryConsume(key(1), onePerSecond, 1);
		store.tryConsume(key(1), onePerSecond, 1);
		this.time.advance(Duration.ofSeconds(10));

		assertThat(store.tryConsume(key(1), onePerSecond, 1).remainingTokens()).isOne();
		store.stats(); // the cache lets expired buckets go
		assertThat(store.tryConsume(key(1), onePerSecond, 1).remainingTokens()).isZero();
	}

	/**
	 * A reading taken before the bucket was last charged is no reason to refill it: the
	 * bucket answers as of its latest reading, and tells the wait from there.
	 */
	@Test
	void tryConsumeWhenReadingOlderThanTheBucketThenNothingIsRefilled() {
		LocalBucketStore store = LocalBucketStore.create(10, this.time);
		BucketLimits onePerSecond = BucketLimits.of(BigDecimal.ONE, BigDecimal.ONE, 1);
		assertThat(store.tryConsume(key(1), onePerSecond, 1).consumed()).isTrue();
		assertThat(store.tryConsume(key(1), onePerSecond, 1).consumed()).isFalse(); // a bucket, empty
		long earlier = store.nanoTime();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(store.tryConsume(key(1), onePerSecond, 1, store.nanoTime()).consumed()).isTrue();

		Consumption stale = store.tryConsume(key(1), onePerSecond, 1, earlier);

		assertThat(stale.consumed()).isFalse();
		assertThat(stale.nanosToWait()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
	}

	/**
	 * A million invented keys, each used once and each after the bucket would have refilled
	 * the previous one's request, create no bucket: the doorkeeper answers them. A key used
	 * between them keeps its (empty) bucket.
	 */
	@Test
	void tryConsumeWhenMillionKeysEachUsedOnceThenNoBucketAndHotKeyKeepsItsState() {
		BucketStore store = newStore(100_000);
		BucketLimits thousandPerSecond = BucketLimits.of(BigDecimal.valueOf(1000), BigDecimal.ONE, 1);
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.0001"), BigDecimal.ONE, 1); // refills in 2.8 hours
		BucketKey hot = key(-1);
		assertThat(store.tryConsume(hot, slow, 1).consumed()).isTrue(); // now empty
		SplittableRandom random = new SplittableRandom(7);

		for (int i = 0; i < 1_000_000; i++) {
			this.time.advanceMillis(2);
			assertThat(store.tryConsume(new BucketKey(random.nextLong(), random.nextLong()), thousandPerSecond, 1)
				.remainingTokens()).isEqualTo(999);
			if (i % 100 == 0) {
				assertThat(store.tryConsume(hot, slow, 1).consumed()).as("hot key reset after %d churn keys", i)
					.isFalse();
			}
		}

		assertThat(store.stats()).isEqualTo(new BucketStoreStats(1, 0));
	}

	/**
	 * With the clock standing still, first requests are never refilled: once the
	 * doorkeeper's slots hold them, invented keys get buckets at once. A million leave at most
	 * 100,000 buckets, and a key used between them keeps its (empty) bucket.
	 */
	@Test
	void tryConsumeWhenMillionKeysWhileClockStandsStillThenBoundedAndHotKeyKeepsItsState() {
		BucketStore store = newStore(100_000);
		BucketLimits slow = BucketLimits.of(BigDecimal.ONE, BigDecimal.ONE, 1);
		BucketKey hot = key(-1);
		store.tryConsume(hot, slow, 1);
		assertThat(store.tryConsume(hot, slow, 1).consumed()).isFalse(); // a bucket, empty
		SplittableRandom random = new SplittableRandom(7);

		for (int i = 0; i < 1_000_000; i++) {
			assertThat(store.tryConsume(new BucketKey(random.nextLong(), random.nextLong()), slow, 1).consumed())
				.isTrue();
			if (i % 100 == 0) {
				assertThat(store.tryConsume(hot, slow, 1).consumed()).as("hot key reset after %d churn keys", i)
					.isFalse();
			}
		}

		BucketStoreStats stats = store.stats();
		assertThat(stats.entries()).isLessThanOrEqualTo(100_000);
		assertThat(stats.evictions()).isGreaterThanOrEqualTo(700_000);
	}

	/**
	 * A million invented keys, each used twice so that each gets a bucket, through a store
	 * capped at 100,000 leave at most 100,000 buckets, and a key used between them keeps its
	 * (empty) bucket: churning others cannot reset it.
	 */
	@Test
	void tryConsumeWhenMillionKeysEachUsedTwiceThenBoundedAndHotKeyKeepsItsState() {
		BucketStore store = newStore(100_000);
		BucketLimits slow = BucketLimits.of(BigDecimal.ONE, BigDecimal.ONE, 1);
		BucketKey hot = key(-1);
		assertThat(store.tryConsume(hot, slow, 1).consumed()).isTrue(); // now empty
		SplittableRandom random = new SplittableRandom(7);

		for (int i = 0; i < 1_000_000; i++) {
			BucketKey key = new BucketKey(random.nextLong(), random.nextLong());
			store.tryConsume(key, slow, 1);
			assertThat(store.tryConsume(key, slow, 1).consumed()).isFalse();
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
	void tryConsumeWhenSecondRequestThenBucketCreatedChargedForTheFirstAtItsTime() {
		BucketStore store = newStore(100);

		Consumption first = store.tryConsume(key(1), TEN_PER_SECOND, 20);
		assertThat(first).isEqualTo(new Consumption(true, 0, 0));
		assertThat(store.stats().entries()).isZero();
		this.time.advance(Duration.ofMillis(700)); // 7 tokens refilled since the first request

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 5).remainingTokens()).isEqualTo(2);
		assertThat(store.stats().entries()).isEqualTo(1);
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 3).consumed()).isFalse();
	}

	@Test
	void tryConsumeWhenFirstRequestRefilledThenNextIsAFirstRequestAgain() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 5);
		this.time.advance(Duration.ofMillis(501)); // full again

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(19);
		assertThat(store.stats().entries()).isZero();
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 19).remainingTokens()).isZero();
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).consumed()).isFalse();
	}

	/**
	 * Keys share the doorkeeper's slots. A key whose slot holds another key's first request,
	 * not yet refilled, gets its bucket at once, so that no first request is forgotten:
	 * two keys taking turns on one slot are each held to their limit.
	 */
	@Test
	void tryConsumeWhenKeysShareASlotThenEachHeldToItsLimit() {
		BucketStore store = newStore(100); // 128 slots: key(1) and key(129) share one
		int[] admitted = new int[2];

		for (int i = 0; i < 30; i++) {
			admitted[0] += store.tryConsume(key(1), TEN_PER_SECOND, 1).consumed() ? 1 : 0;
			admitted[1] += store.tryConsume(key(129), TEN_PER_SECOND, 1).consumed() ? 1 : 0;
		}

		assertThat(admitted).containsExactly(20, 20);
		assertThat(store.stats().entries()).isEqualTo(2);
	}

	/**
	 * Threads racing on the first requests of new keys: exactly one of them makes a key's
	 * first request and exactly one charges it to the bucket, so each key admits exactly its
	 * capacity.
	 */
	@Test
	void tryConsumeWhenThreadsRaceOnNewKeysThenEachAdmitsExactlyItsCapacity() throws Exception {
		BucketStore store = newStore(100_000);
		int threads = 4;
		int keys = 2_000;
		CyclicBarrier start = new CyclicBarrier(threads);
		AtomicIntegerArray admitted = new AtomicIntegerArray(keys);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> racers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				racers.add(pool.submit(() -> {
					for (int k = 0; k < keys; k++) {
						start.await();
						for (int i = 0; i < 10; i++) {
							if (store.tryConsume(key(k), TEN_PER_SECOND, 1).consumed()) {
								admitted.incrementAndGet(k);
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> racer : racers) {
				racer.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}

		for (int k = 0; k < keys; k++) {
			assertThat(admitted.get(k)).as("requests of key %d admitted", k).isEqualTo(20);
		}
	}

	/**
	 * A first request is charged under the limits in force at the second: after a policy
	 * change in between, the bucket starts from the new capacity less the first request.
	 */
	@Test
	void tryConsumeWhenLimitsChangeAfterFirstRequestThenChargedUnderTheNewLimits() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 4);
		BucketLimits larger = BucketLimits.of(BigDecimal.valueOf(50), BigDecimal.valueOf(2), 1); // capacity 100

		assertThat(store.tryConsume(key(1), larger, 1).remainingTokens()).isEqualTo(95);
	}

	/**
	 * The doorkeeper keeps a first request's tokens and time in a few bits: a heavier request,
	 * or a bucket that refills over hours, gets its bucket with its first request.
	 */
	@Test
	void tryConsumeWhenRequestTooHeavyOrRefillTooSlowForDoorkeeperThenBucketOnFirstRequest() {
		BucketStore store = newStore(100);
		BucketLimits wide = BucketLimits.of(BigDecimal.valueOf(5000), BigDecimal.ONE, 1); // capacity 5,000
		BucketLimits hourly = BucketLimits.of(new BigDecimal("0.0001"), BigDecimal.ONE, 1); // 1 per 2.8 hours

		assertThat(store.tryConsume(key(1), wide, 4096).remainingTokens()).isEqualTo(904);
		assertThat(store.tryConsume(key(2), hourly, 1).consumed()).isTrue();

		assertThat(store.stats().entries()).isEqualTo(2);
		assertThat(store.tryConsume(key(3), wide, 4095).remainingTokens()).isEqualTo(905); // at the doorkeeper
		assertThat(store.stats().entries()).isEqualTo(2);
	}

	/**
	 * A first request is charged to the bucket even when the limits have changed since to a
	 * refill too slow for the doorkeeper, so that it is never forgotten.
	 */
	@Test
	void tryConsumeWhenLimitsRefillTooSlowAfterFirstRequestThenStillCharged() {
		BucketStore store = newStore(100);
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.01"), BigDecimal.valueOf(3000), 1); // 30, in 50 min
		store.tryConsume(key(1), TEN_PER_SECOND, 5);

		assertThat(store.tryConsume(key(1), slow, 1).remainingTokens()).isEqualTo(24);
	}

	@Test
	void tryConsumeWhenMaximumEntriesUnboundedThenDoorkeeperStillBounded() {
		BucketStore store = newStore(Long.MAX_VALUE);

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(19);
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(18);
		assertThat(store.stats().entries()).isEqualTo(1);
	}

	@Test
	void statsWhenIdleLongerThanRefillPeriodThenBucketDroppedLosingNothing() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 10);
		store.tryConsume(key(1), TEN_PER_SECOND, 10); // creates the bucket, which refills completely in 2 s

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
