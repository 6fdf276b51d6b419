package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Requests that a key's lease and credit cannot pay for while the shared bucket may: by
 * default each waits once for the key's call on its way, with {@link BurstHandling#REFUSE}
 * each is refused at once, and no request waits for a call that never ends.
 */
class BurstHandlingTest {

	private static final BucketKey KEY = new BucketKey(1, 2);

	/** 100 tokens, refilled at 100 per second; credit of 10 (a tenth of the capacity). */
	private static final BucketLimits HUNDRED_PER_SECOND = BucketLimits.of(new BigDecimal("100"), BigDecimal.ONE, 1);

	private static final int CREDIT = 10;

	private final FakeTimeSource time = new FakeTimeSource();

	private final SharedTestBuckets shared = new SharedTestBuckets(this.time);

	private final LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();

	private LeasedBucketStore replica(LeasableBucketStore shared, BurstHandling bursts) {
		return new LeasedBucketStore(shared, LeaseSizing.defaults(), bursts, Duration.ofSeconds(1),
				Duration.ofSeconds(1), 1000, this.background, this.time);
	}

	@Test
	void tryConsumeWhenBurstsWaitAndAColdKeyGetsMoreThanItsCreditThenTheRequestBeyondItIsDecidedByTheSharedStore() {
		LeasedBucketStore store = replica(this.shared, BurstHandling.WAIT);
		for (int i = 0; i < CREDIT; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).as("the key's call, made by the request").isOne();
		assertThat(store.leaseStats().bursts()).isOne();
		assertThat(store.leaseStats().sharedWaits()).isOne();
	}

	@Test
	void tryConsumeWhenBurstsAreRefusedAndAColdKeyGetsMoreThanItsCreditThenTheRequestBeyondItIsRefusedAtOnce() {
		LeasedBucketStore store = replica(this.shared, BurstHandling.REFUSE);
		for (int i = 0; i < CREDIT; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}

		Consumption refused = store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);

		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isPositive();
		assertThat(this.shared.calls()).as("no request waited for the shared store").isZero();
		assertThat(store.leaseStats().bursts()).isOne();
		assertThat(store.leaseStats().sharedWaits()).isZero();
		this.background.runAll(); // the credit call lands, with a lease
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).as("decided from the lease").isTrue();
		assertThat(this.shared.calls()).as("the credit call only").isOne();
	}

	@Test
	void tryConsumeWhenBurstsAreRefusedOnASlowBucketThenTheWaitIsTheKeysCallNotTheRefillOfTheRequest() {
		// 20 tokens, one every 6 s, credit of 2: the bucket is not known yet, and is full.
		BucketLimits slow = BucketLimits.perWindow(20, Duration.ofMinutes(2), 20);
		LeasedBucketStore store = replica(this.shared, BurstHandling.REFUSE);
		store.tryConsume(KEY, slow, 1);
		store.tryConsume(KEY, slow, 1);

		Consumption refused = store.tryConsume(KEY, slow, 1);

		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1).toNanos());
	}

	@Test
	void tryConsumeWhenBurstsAreRefusedAndALeaseRunsDryWhileTheBucketHoldsTokensThenRefusedAtOnceAndRefilled() {
		LeasedBucketStore store = replica(this.shared, BurstHandling.REFUSE);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		this.background.runAll(); // leased: the bucket, as last seen, holds about 90
		int admitted = 1;
		while (store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()) {
			admitted++; // the lease, then credit again
		}
		int calls = this.shared.calls();

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isFalse();

		assertThat(admitted).as("the lease and the credit").isGreaterThan(CREDIT);
		assertThat(this.shared.calls()).as("no request waited for the shared store").isEqualTo(calls);
		assertThat(store.leaseStats().sharedWaits()).isZero();
		assertThat(store.leaseStats().bursts()).isEqualTo(2);
		assertThat(this.background.size()).as("the key's call is on its way").isPositive();
		this.background.runAll();
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).as("decided from what landed").isTrue();
	}

	@Test
	void tryConsumeWhenBurstsAreRefusedAndAColdKeyOfASlowSmallBucketThenItsFirstRequestStillWaitsForTheSharedStore() {
		// 5 tokens, one every 10 s: no credit (see LeaseSizing), so refusing would refuse
		// every key's first request.
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.ONE, 5);
		LeasedBucketStore store = replica(this.shared, BurstHandling.REFUSE);

		assertThat(store.tryConsume(KEY, slow, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).as("decided by the shared store").isOne();
		assertThat(store.leaseStats().bursts()).isZero();
	}

	@Test
	void tryConsumeWhenTheKeysCallNeverEndsThenARequestWaitingForItFailsWithinASecond() {
		// Background leases are never answered.
		LeasedBucketStore store = replica(new DeferredLeases(this.shared), BurstHandling.WAIT);
		for (int i = 0; i < CREDIT; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}
		this.background.runAll(); // the credit call starts and never ends

		// The failure mode of the store around this one decides the request.
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThatIllegalStateException()
			.isThrownBy(() -> store.tryConsume(KEY, HUNDRED_PER_SECOND, 1))
			.withMessageContaining("did not answer the key's call within 1000 ms"));
	}

	@Test
	void tryConsumeWhenARequestJoinsACreditCallThatBringsNothingForItThenItIsOneBurstAndIsAdmitted() {
		DeferredLeases deferred = new DeferredLeases(this.shared);
		LeasedBucketStore store = replica(deferred, BurstHandling.WAIT);
		// 15 tokens: the credit of 10, and 5 more, too few to give the credit again.
		this.shared.tryConsume(KEY, HUNDRED_PER_SECOND, 85);
		for (int i = 0; i < CREDIT; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}
		this.background.runAll(); // the credit call starts, asking for the credit used only

		Thread answers = deferred.answerWhileWaiting(Thread.currentThread(), this.background);
		boolean admitted = store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed();
		answers.interrupt();

		// It joined the credit call, which brought nothing for it, then waited for a refill.
		assertThat(admitted).isTrue();
		assertThat(store.leaseStats().bursts()).as("one request, one burst").isOne();
	}

	@Test
	void tryConsumeWhenARequestWaitsForItsKeysCallAndThenARefillThenItWaitsNoLongerInAllThanTheLongestWait() {
		DeferredLeases deferred = new DeferredLeases(this.shared);
		LeasedBucketStore store = replica(deferred, BurstHandling.WAIT); // waits 1 s at most
		this.shared.tryConsume(KEY, HUNDRED_PER_SECOND, 85);
		for (int i = 0; i < CREDIT; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}
		this.background.runAll(); // the credit call starts
		// The store answers it after 900 ms, with nothing for the request; the refill the
		// request then waits for is never run.
		Thread slowAnswer = new Thread(() -> {
			try {
				Thread.sleep(900);
			}
			catch (InterruptedException ex) {
				return;
			}
			deferred.pending.poll().run();
		});
		slowAnswer.start();

		long started = System.nanoTime();
		Consumption decided = store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		Duration waited = Duration.ofNanos(System.nanoTime() - started);

		assertThat(decided.consumed()).as("decided by the lease, which holds nothing").isFalse();
		// 1 s in all, not 900 ms and then a second more.
		assertThat(waited).isLessThan(Duration.ofMillis(1500));
	}

	/**
	 * A shared store whose background leases are answered only when told (or never), so that
	 * a request can join a call the background started.
	 */
	private static final class DeferredLeases implements LeasableBucketStore {

		private final SharedTestBuckets delegate;

		private final ConcurrentLinkedQueue<Runnable> pending = new ConcurrentLinkedQueue<>();

		DeferredLeases(SharedTestBuckets delegate) {
			this.delegate = delegate;
		}

		@Override
		public CompletionStage<Grant> leaseAsync(BucketKey key, BucketLimits limits, long maximumUnits) {
			CompletableFuture<Grant> answer = new CompletableFuture<>();
			this.pending.add(() -> answer.complete(this.delegate.lease(key, limits, maximumUnits)));
			return answer;
		}

		/**
		 * Answers the calls made so far, and runs the background's queued ones, whenever the
		 * request's thread waits; until interrupted.
		 */
		Thread answerWhileWaiting(Thread request, LeasedBucketStoreTest.QueuedExecutor background) {
			Thread answers = new Thread(() -> {
				while (!Thread.currentThread().isInterrupted()) {
					if (request.getState() == Thread.State.TIMED_WAITING) {
						background.runAll();
						for (Runnable answer; (answer = this.pending.poll()) != null;) {
							answer.run();
						}
					}
					Thread.onSpinWait();
				}
			});
			answers.setDaemon(true);
			answers.start();
			return answers;
		}

		@Override
		public Grant lease(BucketKey key, BucketLimits limits, long maximumUnits) {
			return this.delegate.lease(key, limits, maximumUnits);
		}

		@Override
		public void giveBack(BucketKey key, BucketLimits limits, long units) {
			this.delegate.giveBack(key, limits, units);
		}

		@Override
		public void charge(BucketKey key, BucketLimits limits, long units) {
			this.delegate.charge(key, limits, units);
		}

		@Override
		public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
			return this.delegate.tryConsume(key, limits, tokens);
		}

		@Override
		public void refund(BucketKey key, BucketLimits limits, long tokens) {
			this.delegate.refund(key, limits, tokens);
		}

		@Override
		public BucketStoreStats stats() {
			return this.delegate.stats();
		}

	}

}
