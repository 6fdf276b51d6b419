package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Batched global buckets on a virtual clock, the shared store being plain Bucket4j buckets:
 * leases are charged when taken, requests are decided from them, and what is left goes back.
 */
class LeasedBucketStoreTest {

	private static final BucketKey KEY = new BucketKey(1, 2);

	/** 100 tokens, refilled at 100 per second; leases of at most 10. */
	private static final BucketLimits HUNDRED_PER_SECOND = BucketLimits.of(new BigDecimal("100"), BigDecimal.ONE, 1);

	/** 100 tokens, refilled at 1 per second. */
	private static final BucketLimits ONE_PER_SECOND = BucketLimits.of(BigDecimal.ONE, new BigDecimal("100"), 1);

	private static final long TOKEN = BucketLimits.UNITS_PER_TOKEN;

	private final FakeTimeSource time = new FakeTimeSource();

	private final SharedTestBuckets shared = new SharedTestBuckets(this.time);

	private final QueuedExecutor background = new QueuedExecutor();

	/** Cold keys wait for their first lease. */
	private LeasedBucketStore replica(Executor background) {
		return new LeasedBucketStore(this.shared, new LeaseSizing(Duration.ofMillis(100), 0.1, true),
				Duration.ofSeconds(1), 1000, background, this.time);
	}

	/** Cold keys are decided on credit of a tenth of the capacity, as by default. */
	private LeasedBucketStore onCredit(Executor background) {
		return new LeasedBucketStore(this.shared, LeaseSizing.defaults(), Duration.ofSeconds(1), 1000, background,
				this.time);
	}

	@Test
	void tryConsumeWhenLeaseUsedUpWhileTheBucketHoldsTokensThenTheRequestWaitsForTheRefill() {
		QueuedExecutor refills = new QueuedExecutor();
		LeasedBucketStore store = replica(refills);
		useUpTheLease(store);
		int callsBefore = this.shared.calls();

		// The bucket holds 90 tokens and more: refusing would refuse what the fleet has to give.
		Thread refiller = runQueuedOnceWaiting(refills, Thread.currentThread());
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();

		join(refiller);
		assertThat(this.shared.calls()).as("the refill, and no call of the request's own").isEqualTo(callsBefore + 1);
	}

	@Test
	void tryConsumeWhenTheRefillARequestWaitsForFailsThenTheRequestFailsWithItAndMakesNoCallOfItsOwn() {
		QueuedExecutor refills = new QueuedExecutor();
		LeasedBucketStore store = replica(refills);
		useUpTheLease(store);
		int callsBefore = this.shared.calls();
		this.shared.fail(new IllegalStateException("the shared store is down"));

		Thread refiller = runQueuedOnceWaiting(refills, Thread.currentThread());
		// The failure mode decides it, after one wait: not a second call, and a second timeout.
		assertThatThrownBy(() -> store.tryConsume(KEY, HUNDRED_PER_SECOND, 1))
			.hasMessage("the shared store is down");

		join(refiller);
		assertThat(this.shared.calls()).as("the failed refill only").isEqualTo(callsBefore + 1);
	}

	/** Takes the key's first lease and all of it; its refill is queued, not run. */
	private void useUpTheLease(LeasedBucketStore store) {
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		while (store.lease(KEY).leasedUnits() >= TOKEN) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}
		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND)).isGreaterThanOrEqualTo(80 * TOKEN);
	}

	/** Runs the queued refills once the request's thread waits, on a thread of its own. */
	private static Thread runQueuedOnceWaiting(QueuedExecutor refills, Thread request) {
		Thread refiller = new Thread(() -> {
			long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
			while (request.getState() != Thread.State.TIMED_WAITING && System.nanoTime() - deadline < 0) {
				Thread.onSpinWait();
			}
			refills.runAll();
		});
		refiller.start();
		return refiller;
	}

	private static void join(Thread thread) {
		try {
			thread.join(Duration.ofSeconds(5).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void tryConsumeWhenColdKeyThenDecidedAtOnceAndItsFirstLeaseChargesTheCredit() {
		LeasedBucketStore store = onCredit(this.background);

		for (int i = 0; i < 3; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}

		assertThat(this.shared.calls()).as("no request waited for the shared store").isZero();
		assertThat(store.leaseStats().coldStarts()).isOne();
		this.background.runAll();
		assertThat(this.shared.calls()).isOne();
		// The call asked for the credit of 10 besides the lease, so the 3 admitted are paid for.
		long leased = store.lease(KEY).leasedUnits();
		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND) + leased).isEqualTo(97 * TOKEN);
		assertThat(store.leaseStats().owedUnits()).isZero();
	}

	@Test
	void tryConsumeWhenColdKeyGoesBeyondItsCreditThenTheRequestJoinsItsFirstLeaseCall() {
		LeasedBucketStore store = onCredit(this.background);
		for (int i = 0; i < 10; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}

		// The bucket is full: the request waits for the call (made by it, here) and passes.
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).isOne();
		this.background.runAll();
		assertThat(this.shared.calls()).as("the queued call finds it made").isOne();
	}

	@Test
	void tryConsumeWhenBurstOnAColdKeyWithAFullBucketThenShortOfExactByAtMostTheLease() {
		LeasedBucketStore store = onCredit(Runnable::run);
		int admitted = 0;
		for (int i = 0; i < 50; i++) {
			admitted += store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed() ? 1 : 0;
		}

		// An exact limiter admits 50 of a full 100; a lease of at most 10 may be held back.
		assertThat(admitted).isGreaterThanOrEqualTo(50 - 15);
	}

	@Test
	void tryConsumeWhenKeyGoesColdEveryCycleThenCreditOnlyWhileItsBucketCouldHoldIt() {
		// Bursts of 20 on an empty 100-a-minute bucket, idle past idle-return in between.
		BucketLimits perMinute = BucketLimits.perWindow(100, Duration.ofMinutes(1), 100);
		this.shared.tryConsume(KEY, perMinute, 100);
		LeasedBucketStore store = onCredit(this.background);
		int admitted = 0;
		for (int cycle = 0; cycle < 60; cycle++) {
			for (int i = 0; i < 20; i++) {
				admitted += store.tryConsume(KEY, perMinute, 1).consumed() ? 1 : 0;
			}
			this.background.runAll();
			this.time.advanceMillis(1001);
			store.stats(); // the idle lease goes back
			this.background.runAll();
		}

		// The refill of a minute, and at most one credit of 10 beyond it.
		assertThat(admitted).isLessThanOrEqualTo(100 + 10);
	}

	@Test
	void tryConsumeWhenClientPacedPastIdleReturnThenLimitedAsExactlyAsWithoutCredit() {
		// One request every 1.001 s, so that each finds its key cold, on 10 an hour.
		BucketLimits tenPerHour = BucketLimits.perWindow(10, Duration.ofHours(1), 10);
		LeasedBucketStore store = onCredit(this.background);
		int admitted = 0;
		for (int i = 0; i < 3600; i++) {
			admitted += store.tryConsume(KEY, tenPerHour, 1).consumed() ? 1 : 0;
			this.background.runAll();
			this.time.advanceMillis(1001);
			store.stats();
			this.background.runAll();
		}

		// A full bucket of 10, the hour's refill of 10, and at most one credit of 1.
		assertThat(admitted).isLessThanOrEqualTo(10 + 10 + 1);
	}

	@Test
	void tryConsumeWhenSharedStoreDownAndKeyGoesColdEveryCycleThenCreditOnceAndThenTheFailure() {
		BucketLimits perMinute = BucketLimits.perWindow(100, Duration.ofMinutes(1), 100);
		this.shared.tryConsume(KEY, perMinute, 100);
		this.shared.fail(new IllegalStateException("Redis is down"));
		LeasedBucketStore store = onCredit(this.background);
		int admitted = 0;
		int thrown = 0;
		for (int cycle = 0; cycle < 30; cycle++) {
			for (int i = 0; i < 10; i++) {
				try {
					admitted += store.tryConsume(KEY, perMinute, 1).consumed() ? 1 : 0;
				}
				catch (IllegalStateException ex) {
					thrown++; // for the failure mode of the store around this one
				}
			}
			this.background.runAll();
			this.time.advanceMillis(1001);
			store.stats();
			this.background.runAll();
		}

		assertThat(admitted).as("one credit of 10").isLessThanOrEqualTo(10);
		assertThat(thrown).isPositive();
	}

	@Test
	void tryConsumeWhenReturnsQueueFullThenCreditOwedIsStillCharged() {
		LeasedBucketStore store = onCredit(this.background);
		for (int i = 0; i < LeasedBucketStore.MAXIMUM_QUEUED_TASKS; i++) {
			store.tryConsume(new BucketKey(200, i), HUNDRED_PER_SECOND, 1);
		}
		this.background.runAll();
		this.shared.tryConsume(KEY, ONE_PER_SECOND, 100); // empty
		this.time.advanceMillis(1500); // 1.5 refilled; the other keys' leases go back, queued
		store.stats();
		for (int i = 0; i < 20; i++) {
			store.tryConsume(KEY, ONE_PER_SECOND, 1);
		}

		this.background.runAll();

		// Ten admitted on credit, 1.5 paid by the grant: the rest charged as debt.
		assertThat(this.shared.availableUnits(KEY, ONE_PER_SECOND)).isEqualTo(-8_500);
	}

	@Test
	void tryConsumeWhenPolicyFlipsBackWhileTheCreditCallIsInFlightThenNothingIsChargedTwice() {
		LeasedBucketStore store = onCredit(this.background);
		for (int i = 0; i < 4; i++) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		}
		store.tryConsume(KEY, ONE_PER_SECOND, 1); // the four used go back as a debt
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		this.background.runAll(); // the first call's grant belongs to a lease that is gone

		for (int i = 0; i < 40; i++) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
			this.background.runAll();
			this.time.advanceMillis(30);
		}
		assertThat(store.leaseStats().refillFailures()).isZero();
	}

	@Test
	void tryConsumeWhenSharedBucketEmptyThenCreditUsedIsChargedAsDebtAndRepaidBeforeMoreIsAdmitted() {
		this.shared.tryConsume(KEY, ONE_PER_SECOND, 100); // empty, one token a second
		LeasedBucketStore store = onCredit(this.background);
		int admitted = 0;
		for (int i = 0; i < 20; i++) {
			admitted += store.tryConsume(KEY, ONE_PER_SECOND, 1).consumed() ? 1 : 0;
		}
		assertThat(admitted).as("the credit, a tenth of 100").isEqualTo(10);

		this.background.runAll();

		assertThat(store.leaseStats().owedUnits()).isEqualTo(10 * TOKEN);
		assertThat(this.shared.availableUnits(KEY, ONE_PER_SECOND)).isEqualTo(-10 * TOKEN);
		// The debt delays the key by as much: ten seconds of refill before anything more.
		for (int second = 0; second < 10; second++) {
			this.time.advanceMillis(999);
			assertThat(store.tryConsume(KEY, ONE_PER_SECOND, 1).consumed()).as("second %d", second).isFalse();
			this.background.runAll();
		}
	}

	@Test
	void tryConsumeWhenThreeReplicasFloodAColdKeyThenBeyondExactByAtMostTheirCreditOnce() {
		List<LeasedBucketStore> replicas = List.of(onCredit(Runnable::run), onCredit(Runnable::run),
				onCredit(Runnable::run));
		this.shared.tryConsume(KEY, HUNDRED_PER_SECOND, 100); // the attack starts on an empty bucket
		int admitted = 0;
		int seconds = 10;
		for (int millis = 0; millis < seconds * 1000; millis++) {
			for (LeasedBucketStore replica : replicas) {
				admitted += replica.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed() ? 1 : 0;
			}
			this.time.advanceMillis(1);
		}

		int exact = 100 * seconds;
		// Each replica's credit of 10 at most, once; less by at most the leases held back.
		assertThat(admitted).isLessThanOrEqualTo(exact + 3 * 10).isGreaterThanOrEqualTo(exact - 45);
	}

	@Test
	void tryConsumeWhenBackgroundCannotQueueTheFirstLeaseThenTheColdKeyWaitsInsteadOfCredit() {
		LeasedBucketStore store = onCredit(this.background);
		for (int i = 0; i < LeasedBucketStore.MAXIMUM_QUEUED_TASKS; i++) {
			store.tryConsume(new BucketKey(7, i), HUNDRED_PER_SECOND, 1);
		}
		assertThat(this.shared.calls()).isZero();

		// Credit nothing would charge: the request waits for its lease instead.
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).isOne();
		assertThat(store.leaseStats().coldStarts()).isEqualTo(LeasedBucketStore.MAXIMUM_QUEUED_TASKS);
	}

	@Test
	void tryConsumeWhenColdKeyAndSharedStoreFailsThenCreditAdmitsAndThenTheFailureIsThrown() {
		this.shared.fail(new IllegalStateException("Redis is down"));
		LeasedBucketStore store = onCredit(this.background);

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		this.background.runAll(); // the first lease fails
		while (store.lease(KEY).leasedUnits() > 0) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		}

		// Beyond its credit the key reaches the failure mode of the store around this one.
		assertThatThrownBy(() -> store.tryConsume(KEY, HUNDRED_PER_SECOND, 1)).hasMessage("Redis is down");
	}

	@Test
	void closeWhenColdKeyUsedCreditThenItIsChargedNotGivenBack() {
		// The first lease is held back until the replica has stopped; the rest runs at once.
		List<Runnable> heldBack = new ArrayList<>();
		LeasedBucketStore store = onCredit((task) -> {
			if (heldBack.isEmpty()) {
				heldBack.add(task);
			}
			else {
				task.run();
			}
		});
		for (int i = 0; i < 4; i++) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		}

		store.close(Duration.ofMillis(50));
		heldBack.forEach(Runnable::run); // its grant finds the lease retired and goes back

		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND)).isEqualTo(96 * TOKEN);
		assertThat(store.leaseStats().owedUnits()).isEqualTo(4 * TOKEN);
	}

	@Test
	void tryConsumeWhenFirstRequestThenWaitsForLeaseAndLaterRequestsAreLocal() {
		LeasedBucketStore store = replica(this.background);

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		assertThat(this.shared.calls()).isEqualTo(1);
		// Eager: the shared bucket was charged for the request and a lease of 10 at once.
		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND)).isEqualTo(89 * TOKEN);
		for (int i = 0; i < 10; i++) {
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}

		assertThat(this.shared.calls()).as("no request waited for the shared store again").isEqualTo(1);
		assertThat(store.leaseStats().localDecisions()).isEqualTo(11);
		assertThat(store.leaseStats().sharedWaits()).isEqualTo(1);
		this.background.runAll();
		assertThat(store.leaseStats().refills()).as("the next lease, taken in the background").isEqualTo(1);
	}

	/**
	 * A request heavier than the largest lease (5 tokens, leases of at most 3 of a bucket of
	 * 30) gets a lease that holds it: refused at most while that lease is on its way, then
	 * admitted, until the shared bucket itself is short.
	 */
	@Test
	void tryConsumeWhenRequestHeavierThanTheLargestLeaseThenItsLeaseHoldsIt() {
		BucketLimits thirtyPerMinute = BucketLimits.perWindow(30, Duration.ofMinutes(1), 30);
		LeasedBucketStore store = replica(Runnable::run);
		int admitted = 0;
		for (int i = 0; i < 20; i++) {
			admitted += store.tryConsume(KEY, thirtyPerMinute, 5).consumed() ? 1 : 0;
		}

		// An exact limiter admits 6; a lease of at most 5 tokens may be held back.
		assertThat(admitted).isBetween(5, 6);
	}

	@Test
	void tryConsumeWhenLeaseUsedUpAndRefillPendingThenRefusedLocallyUntilItArrives() {
		LeasedBucketStore store = replica(this.background);
		for (int i = 0; i < 11; i++) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		}

		Consumption refused = store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);

		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isPositive();
		assertThat(this.shared.calls()).isEqualTo(1);
		this.background.runAll();
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		assertThat(store.lease(KEY).leasedUnits()).isPositive();
	}

	@Test
	void tryConsumeWhenThreeReplicasFloodOneKeyThenNeverMoreThanExactAndLessByAtMostTheirLeases() {
		List<LeasedBucketStore> replicas = List.of(replica(Runnable::run), replica(Runnable::run),
				replica(Runnable::run));
		int admitted = 0;
		int seconds = 10;
		for (int millis = 0; millis < seconds * 1000; millis++) {
			for (LeasedBucketStore replica : replicas) {
				admitted += replica.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed() ? 1 : 0;
			}
			this.time.advanceMillis(1);
		}

		int exact = 100 + 100 * seconds; // a full bucket, then the refill
		// Three replicas, leases of at most 10 tokens: at most 1.5 x 3 x 10 held back.
		assertThat(admitted).isLessThanOrEqualTo(exact).isGreaterThanOrEqualTo(exact - 45);
		long sharedCalls = this.shared.calls();
		assertThat((double) sharedCalls / (3 * seconds * 1000)).as("shared-store calls per decision").isLessThan(0.05);
	}

	@Test
	void leaseWhenIdleThenGoesBackToSharedBucket() {
		this.shared.tryConsume(KEY, ONE_PER_SECOND, 50); // 50 left
		LeasedBucketStore store = replica(this.background);
		store.tryConsume(KEY, ONE_PER_SECOND, 1); // leases 1 + 10: 39 left
		assertThat(this.shared.availableUnits(KEY, ONE_PER_SECOND)).isEqualTo(39 * TOKEN);

		this.time.advanceMillis(1500); // idle past the second; the shared bucket gains 1.5
		store.stats();
		this.background.runAll();

		assertThat(this.shared.availableUnits(KEY, ONE_PER_SECOND)).isEqualTo(50_500);
		assertThat(store.lease(KEY)).isNull();
	}

	@Test
	void closeWhenLeasesHeldThenGivesThemBack() {
		this.shared.tryConsume(KEY, ONE_PER_SECOND, 50);
		LeasedBucketStore store = replica(Runnable::run);
		store.tryConsume(KEY, ONE_PER_SECOND, 1);

		assertThat(store.close(Duration.ofSeconds(1))).isTrue();

		assertThat(this.shared.availableUnits(KEY, ONE_PER_SECOND)).isEqualTo(49 * TOKEN);
	}

	@Test
	void closeWhenReturnsDoNotRunThenGivesUpAtDeadlineAndCountsThemDropped() {
		LeasedBucketStore store = replica(this.background); // runs nothing unless told
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		store.tryConsume(new BucketKey(3, 4), HUNDRED_PER_SECOND, 1);

		assertThat(store.close(Duration.ofMillis(50))).isFalse();

		assertThat(store.leaseStats().droppedReturns()).isEqualTo(2);
	}

	@Test
	void refillWhenReturnsOfIdleKeysQueuedThenRunsBeforeThem() {
		LeasedBucketStore store = replica(this.background);
		for (int i = 0; i < 50; i++) {
			store.tryConsume(new BucketKey(100, i), HUNDRED_PER_SECOND, 1);
		}
		this.time.advanceMillis(1500); // the 50 keys are idle: their leases go back
		store.stats(); // the removal notifications queue the returns
		BucketKey hot = new BucketKey(7, 7);
		for (int i = 0; i < 8; i++) {
			store.tryConsume(hot, HUNDRED_PER_SECOND, 1); // uses the lease up to its refill
		}

		while (store.leaseStats().refills() == 0) {
			this.background.runOne();
		}

		assertThat(store.leaseStats().returnedUnits()).as("no return ran before the hot key's refill").isZero();
	}

	@Test
	void giveBackWhenMoreIdleLeasesThanTheQueueHoldsThenDropsTheRest() {
		LeasedBucketStore store = replica(this.background);
		int keys = 1200;
		for (int i = 0; i < keys; i++) {
			store.tryConsume(new BucketKey(200, i), HUNDRED_PER_SECOND, 1);
		}
		this.time.advanceMillis(1500);
		store.stats();

		assertThat(this.background.size()).as("queued background work").isEqualTo(LeasedBucketStore.MAXIMUM_QUEUED_TASKS);
		assertThat(store.leaseStats().droppedReturns()).isEqualTo(200);
	}

	@Test
	void refundWhenLeaseHeldThenTokensReturnToLease() {
		LeasedBucketStore store = replica(this.background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 3);
		long leased = store.lease(KEY).leasedUnits();

		store.refund(KEY, HUNDRED_PER_SECOND, 3);

		assertThat(store.lease(KEY).leasedUnits()).isEqualTo(leased + 3 * TOKEN);
	}

	/**
	 * Requests refused by another limit give their tokens back while leases are evicted under
	 * them (more keys than the store holds leases): a refund that found its lease retired
	 * between the look-up and the lock was added to it and lost. Every token taken is given
	 * back, so every shared bucket ends as full as it began.
	 */
	@Test
	void refundWhenLeasesAreEvictedMeanwhileThenNoTokenIsLost() throws Exception {
		LeasedBucketStore store = new LeasedBucketStore(this.shared, new LeaseSizing(Duration.ofMillis(100), 0.1, true),
				Duration.ofSeconds(1), 4, Runnable::run, this.time);
		int keys = 32;
		List<Thread> threads = new ArrayList<>();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		for (int t = 0; t < 4; t++) {
			int offset = t;
			Thread thread = new Thread(() -> {
				for (int i = 0; i < 20_000; i++) {
					BucketKey key = new BucketKey(300, (i * 7 + offset) % keys);
					if (store.tryConsume(key, ONE_PER_SECOND, 1).consumed()) {
						store.refund(key, ONE_PER_SECOND, 1);
					}
				}
			});
			thread.setUncaughtExceptionHandler((dead, failure) -> failures.add(failure));
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(failures).isEmpty();

		assertThat(store.close(Duration.ofSeconds(5))).isTrue();

		for (int k = 0; k < keys; k++) {
			assertThat(this.shared.availableUnits(new BucketKey(300, k), ONE_PER_SECOND)).as("key %d", k)
				.isEqualTo(100 * TOKEN);
		}
	}

	/**
	 * What the shared bucket held at this replica's last grant is spent by another replica
	 * before the refill lands: the refusal must not report it as left, or a client told
	 * {@code r=89} with its 429 would send again at once.
	 */
	@Test
	void tryConsumeWhenRefusedAfterAnotherReplicaSpentTheSharedBucketThenReportsLessThanTheRequestNeeds() {
		LeasedBucketStore store = replica(this.background); // runs no refill unless told
		assertThat(store.tryConsume(KEY, ONE_PER_SECOND, 1).consumed()).isTrue();
		long sharedLeft = this.shared.availableUnits(KEY, ONE_PER_SECOND) / TOKEN;
		assertThat(this.shared.tryConsume(KEY, ONE_PER_SECOND, sharedLeft).consumed()).as("another replica").isTrue();
		while (store.lease(KEY).leasedUnits() >= TOKEN) {
			assertThat(store.tryConsume(KEY, ONE_PER_SECOND, 1).consumed()).isTrue();
		}

		// Waits for the refill that does not land (a second at most), then is refused.
		Consumption refused = store.tryConsume(KEY, ONE_PER_SECOND, 1);

		assertThat(refused.consumed()).isFalse();
		assertThat(refused.remainingUnits()).isLessThan(TOKEN);
	}

	/**
	 * A short grant says the shared bucket is empty, and the replica leaves it alone while it
	 * refills what was missing: for a bucket of 40 an hour, minutes. Meanwhile other replicas
	 * give unused leases back (idle, or at shutdown), and a replica still refusing its callers
	 * left those tokens unused for the rest of that time: two replicas of a batched hourly
	 * limit admitted 16 of 40. A replica asks again within a second.
	 */
	@Test
	void tryConsumeWhenTokensComeBackAfterAShortGrantThenTheReplicaTakesThemWithinASecond() {
		BucketLimits fortyAnHour = BucketLimits.of(new BigDecimal("0.01"), BigDecimal.valueOf(4000), 1);
		LeasedBucketStore store = replica(Runnable::run);
		assertThat(store.tryConsume(KEY, fortyAnHour, 1).consumed()).isTrue();
		long sharedLeft = this.shared.availableUnits(KEY, fortyAnHour) / TOKEN;
		assertThat(this.shared.tryConsume(KEY, fortyAnHour, sharedLeft).consumed()).as("another replica").isTrue();
		int admitted = 1;
		while (store.tryConsume(KEY, fortyAnHour, 1).consumed()) {
			admitted++; // the lease, then a short grant: refused
		}
		assertThat(admitted).isLessThan(40);

		// Another replica gives back a lease of 10 it did not use.
		this.shared.giveBack(KEY, fortyAnHour, 10 * TOKEN);
		// The key's callers keep coming, so the replica's lease never goes idle.
		int later = 0;
		for (int i = 0; i < 3; i++) {
			this.time.advanceMillis(500);
			later += store.tryConsume(KEY, fortyAnHour, 1).consumed() ? 1 : 0;
		}

		assertThat(later).as("admitted within 1.5 s of the tokens coming back").isPositive();
	}

	@Test
	void tryConsumeWhenSharedStoreFailsThenFirstRequestAndRequestAfterFailedRefillThrow() {
		LeasedBucketStore store = replica(this.background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		this.shared.fail(new IllegalStateException("Redis is down"));
		while (store.lease(KEY).leasedUnits() > 0) {
			store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		}
		this.background.runAll(); // the background lease fails

		// Decided by the failure mode of the store around this one, not refused here.
		assertThatThrownBy(() -> store.tryConsume(KEY, HUNDRED_PER_SECOND, 1)).hasMessage("Redis is down");
		assertThatThrownBy(() -> store.tryConsume(new BucketKey(3, 4), HUNDRED_PER_SECOND, 1))
			.hasMessage("Redis is down");
		assertThat(store.leaseStats().refillFailures()).isEqualTo(1);
	}

	@Test
	void tryConsumeWhenPolicyChangesThenOldLeaseGoesBack() {
		this.shared.tryConsume(KEY, ONE_PER_SECOND, 50);
		LeasedBucketStore store = replica(this.background);
		store.tryConsume(KEY, ONE_PER_SECOND, 1); // a lease of 10 left

		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		this.background.runAll();

		assertThat(store.leaseStats().returnedUnits()).isEqualTo(10 * TOKEN);
	}

	/** Runs background work when the test says so. */
	static final class QueuedExecutor implements Executor {

		private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

		@Override
		public synchronized void execute(Runnable task) {
			this.tasks.add(task);
		}

		synchronized int size() {
			return this.tasks.size();
		}

		void runOne() {
			Runnable task;
			synchronized (this) {
				task = this.tasks.poll();
			}
			task.run();
		}

		void runAll() {
			while (true) {
				List<Runnable> batch;
				synchronized (this) {
					if (this.tasks.isEmpty()) {
						return;
					}
					batch = new ArrayList<>(this.tasks);
					this.tasks.clear();
				}
				batch.forEach(Runnable::run);
			}
		}

	}

}
