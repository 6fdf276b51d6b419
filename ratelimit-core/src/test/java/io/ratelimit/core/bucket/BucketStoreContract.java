package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour every {@link BucketStore} must have. Each implementation's test extends
 * this class, so all stores are held to one contract; it is published in this module's
 * test jar for the stores of other modules.
 */
public abstract class BucketStoreContract {

	/** 10 requests per second, burst factor 2: capacity 20. */
	protected static final BucketLimits TEN_PER_SECOND = BucketLimits.of(BigDecimal.TEN, BigDecimal.valueOf(2), 1);

	/** The clock every store under test must refill by; it moves only when a test says. */
	protected final FakeTimeSource time = new FakeTimeSource();

	/**
	 * Returns a new, empty store on {@link #time}.
	 * @param maximumEntries the most buckets the store may hold, for stores that bound
	 * their entries themselves
	 * @return the store
	 */
	protected abstract BucketStore newStore(long maximumEntries);

	protected static BucketKey key(long n) {
		return new BucketKey(n, ~n);
	}

	@Test
	void tryConsumeWhenNewKeyThenBucketStartsFull() {
		BucketStore store = newStore(100);

		for (int i = 0; i < 20; i++) {
			Consumption consumption = store.tryConsume(key(1), TEN_PER_SECOND, 1);
			assertThat(consumption.consumed()).isTrue();
			assertThat(consumption.remainingTokens()).isEqualTo(19 - i);
		}
		Consumption refused = store.tryConsume(key(1), TEN_PER_SECOND, 1);
		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isEqualTo(Duration.ofMillis(100).toNanos());
	}

	@Test
	void tryConsumeWhenWeightAboveTokensThenConsumesNothing() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 17);

		Consumption refused = store.tryConsume(key(1), TEN_PER_SECOND, 5);

		assertThat(refused.consumed()).isFalse();
		assertThat(refused.remainingTokens()).isEqualTo(3);
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 3).consumed()).isTrue();
	}

	@Test
	void tryConsumeWhenTimePassesThenRefillsAtRateUpToCapacity() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20);

		this.time.advanceMillis(500);
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 5).consumed()).isTrue();
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).consumed()).isFalse();

		this.time.advance(Duration.ofHours(1));
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(19);
	}

	@Test
	void tryConsumeWhenKeysDifferThenBucketsAreIndependent() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20);

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).consumed()).isFalse();
		assertThat(store.tryConsume(key(2), TEN_PER_SECOND, 1).consumed()).isTrue();
	}

	@Test
	void tryConsumeWhenLimitsChangeThenBucketKeepsTokensCappedAtNewCapacity() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 2);
		store.tryConsume(key(1), TEN_PER_SECOND, 2); // 16 left
		BucketLimits smaller = BucketLimits.of(BigDecimal.valueOf(5), BigDecimal.ONE, 1); // capacity 5

		Consumption consumption = store.tryConsume(key(1), smaller, 1);

		assertThat(consumption.consumed()).isTrue();
		assertThat(consumption.remainingTokens()).isEqualTo(4);
	}

	@Test
	void refundWhenTokensGivenBackThenAvailableAgainButNeverAboveCapacity() {
		BucketStore store = newStore(100);
		store.tryConsume(key(1), TEN_PER_SECOND, 20);

		store.refund(key(1), TEN_PER_SECOND, 5);

		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 5).consumed()).isTrue();
		assertThat(store.tryConsume(key(1), TEN_PER_SECOND, 1).consumed()).isFalse();
		store.refund(key(2), TEN_PER_SECOND, 5); // a bucket never used: full already
		assertThat(store.tryConsume(key(2), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(19);
		store.refund(key(2), TEN_PER_SECOND, 50);
		assertThat(store.tryConsume(key(2), TEN_PER_SECOND, 1).remainingTokens()).isEqualTo(19);
	}

	@Test
	void tryConsumeWhenRateIsFractionalThenRefillsExactly() {
		BucketStore store = newStore(100);
		BucketLimits fivePerMinute = BucketLimits.of(new BigDecimal("0.0833333"), BigDecimal.ONE, 1); // capacity 1
		assertThat(store.tryConsume(key(1), fivePerMinute, 1).consumed()).isTrue();

		this.time.advance(Duration.ofSeconds(11));
		assertThat(store.tryConsume(key(1), fivePerMinute, 1).consumed()).isFalse();
		this.time.advance(Duration.ofMillis(1001));
		assertThat(store.tryConsume(key(1), fivePerMinute, 1).consumed()).isTrue();
	}

	/**
	 * Eight threads hammer one key while the fake clock advances one second in steps:
	 * exactly capacity + one second of refill is admitted, never a token more.
	 */
	@Test
	void tryConsumeWhenEightThreadsHammerOneKeyThenAdmitsExactlyCapacityPlusRefill() throws Exception {
		BucketStore store = newStore(100);
		int threads = 8;
		AtomicLong admitted = new AtomicLong();
		AtomicLong refused = new AtomicLong();
		AtomicBoolean stop = new AtomicBoolean();
		CountDownLatch ready = new CountDownLatch(threads);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> hammers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				hammers.add(pool.submit(() -> {
					ready.countDown();
					while (!stop.get()) {
						if (store.tryConsume(key(42), TEN_PER_SECOND, 1).consumed()) {
							admitted.incrementAndGet();
						}
						else {
							refused.incrementAndGet();
						}
					}
				}));
			}
			ready.await();
			awaitRefusals(refused, threads); // the initial 20 are gone before time moves
			for (int step = 0; step < 100; step++) {
				this.time.advanceMillis(10); // one tenth of a token each step
				awaitRefusals(refused, threads);
			}
			stop.set(true);
			for (Future<?> hammer : hammers) {
				hammer.get(10, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(admitted.get()).isEqualTo(20 + 10);
	}

	/**
	 * Waits until the hammering threads have been refused a few more times, so the bucket
	 * is known to be empty and no refill is lost to a full bucket.
	 */
	private static void awaitRefusals(AtomicLong refused, int count) {
		long target = refused.get() + count;
		while (refused.get() < target) {
			Thread.onSpinWait();
		}
	}

}
