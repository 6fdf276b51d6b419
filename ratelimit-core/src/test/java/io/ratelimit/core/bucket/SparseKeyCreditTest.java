package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Keys that a replica sees now and then, in batched mode: decided at once on credit, charged
 * for what they admitted by a background call, and holding nothing they would have to give
 * back; and the bound on what credit admits beyond an exact limiter when the background
 * answers late, replicas flood a key, one of them dies, or the shared store is down.
 */
class SparseKeyCreditTest {

	private static final BucketKey KEY = new BucketKey(1, 2);

	/** 100 tokens, refilled at 100 per second; credit of 10 (a tenth of the capacity). */
	private static final BucketLimits HUNDRED_PER_SECOND = BucketLimits.of(new BigDecimal("100"), BigDecimal.ONE, 1);

	private static final long TOKEN = BucketLimits.UNITS_PER_TOKEN;

	private static final long CREDIT = 10;

	private final FakeTimeSource time = new FakeTimeSource();

	private final SharedTestBuckets shared = new SharedTestBuckets(this.time);

	private LeasedBucketStore replica(LeasedBucketStoreTest.QueuedExecutor background) {
		return new LeasedBucketStore(this.shared, LeaseSizing.defaults(), Duration.ofSeconds(1), 1000, background,
				this.time);
	}

	@Test
	void tryConsumeWhenKeySeenOnceThenChargedWhatItAdmittedAndNothingGoesBack() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		background.runAll();

		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND)).isEqualTo(99 * TOKEN);
		assertThat(store.lease(KEY).leasedUnits()).as("nothing leased beyond what was admitted").isZero();
		this.time.advanceMillis(1001);
		store.stats(); // the idle lease is retired
		background.runAll();
		assertThat(this.shared.calls()).as("one call: the charge, no return").isOne();
		assertThat(store.leaseStats().returnedUnits()).isZero();
	}

	@Test
	void tryConsumeWhenLeaseRanDryAndBucketHeldTheCreditThenDecidedOnCreditAgain() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		background.runAll();
		int calls = this.shared.calls();

		// The lease holds nothing: the request is admitted at once, not refused or kept waiting
		// (no time passes, so that the bucket's refill does not hide the second charge).
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).as("no request waited for the shared store").isEqualTo(calls);
		background.runAll();
		assertThat(this.shared.availableUnits(KEY, HUNDRED_PER_SECOND)).as("both charged")
			.isEqualTo(98 * TOKEN);
		assertThat(store.leaseStats().coldStarts()).isEqualTo(2);
	}

	@Test
	void tryConsumeWhenBucketWasSeenEmptyThenNoCreditAgainUntilItCouldHaveRefilled() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		this.shared.tryConsume(KEY, HUNDRED_PER_SECOND, 99);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		background.runAll(); // the grant shows the bucket empty

		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isFalse();
		// 11 tokens (the credit and the request) refill in 110 ms.
		this.time.advanceMillis(105);
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isFalse();
		this.time.advanceMillis(10);
		background.runAll();
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
	}

	@Test
	void tryConsumeWhenLastGrantCameShortThenNoCreditAgainEvenOnceTheBucketCouldHaveRefilled() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		this.shared.tryConsume(KEY, HUNDRED_PER_SECOND, 100); // other replicas took the rest
		background.runAll(); // the credit call finds the bucket empty: a short grant
		this.time.advanceMillis(500); // long enough to refill the credit

		// A hot key's replicas share what refills: it gets leases, not credit.
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		assertThat(store.leaseStats().coldStarts()).isOne();
	}

	@Test
	void tryConsumeWhenBucketHoldsFewerThanTenTokensThenAColdKeyIsDecidedOnCreditAtOnce() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		// A tenth of 5 tokens is half a token: the credit is the request itself.
		BucketLimits fivePerSecond = BucketLimits.of(new BigDecimal("5"), BigDecimal.ONE, 1);

		assertThat(store.tryConsume(KEY, fivePerSecond, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).as("the request did not wait for the shared store").isZero();
		background.runAll();
		assertThat(this.shared.availableUnits(KEY, fivePerSecond)).as("charged").isEqualTo(4 * TOKEN);
		assertThat(store.leaseStats().coldStarts()).isOne();
	}

	@Test
	void tryConsumeWhenASmallBucketRefillsARequestInMoreThanASecondThenItsColdKeyWaitsForTheSharedStore() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		// 5 tokens, one every 10 s (a login limit's shape): credit of a whole request would let
		// n replicas admit 2 × n beyond a limit of five, for minutes.
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.ONE, 5);

		assertThat(store.tryConsume(KEY, slow, 1).consumed()).isTrue();

		assertThat(this.shared.calls()).as("decided by the shared store").isOne();
		assertThat(store.leaseStats().coldStarts()).isZero();
	}

	@Test
	void tryConsumeWhenAColdKeysBucketWasSeenEmptyThenRefusedAtOnceUntilItCouldHaveRefilled() {
		// 10 tokens, 10 a second: a credit of one token, the request.
		BucketLimits tenPerSecond = BucketLimits.of(new BigDecimal("10"), BigDecimal.ONE, 1);
		LeasedBucketStore store = turnedCold(new LeasedBucketStoreTest.QueuedExecutor(), tenPerSecond, 9);
		int calls = this.shared.calls();

		// A token refills in 100 ms from the grant: refused until then, from what the grant
		// showed, without asking the shared store.
		Consumption refused = store.tryConsume(KEY, tenPerSecond, 1);
		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isEqualTo(Duration.ofMillis(80).toNanos());
		assertThat(this.shared.calls()).as("no request waited for the shared store").isEqualTo(calls);

		this.time.advanceMillis(80);
		assertThat(store.tryConsume(KEY, tenPerSecond, 1).consumed()).isTrue();
		assertThat(this.shared.calls()).isEqualTo(calls);
	}

	@Test
	void tryConsumeWhenAColdKeysBucketWasSeenHoldingTheRequestButNotTheCreditThenTheSharedStoreDecides() {
		// The grant shows 5 tokens: less than the credit of 10.
		LeasedBucketStore store = turnedCold(new LeasedBucketStoreTest.QueuedExecutor(), HUNDRED_PER_SECOND, 94);
		int calls = this.shared.calls();

		// The bucket holds the request: refusing it from the view would refuse what it has.
		assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		assertThat(this.shared.calls()).as("decided by the shared store").isEqualTo(calls + 1);
	}

	@Test
	void tryConsumeWhenAColdKeysEmptyViewIsASecondOldThenABackgroundLeaseBringsWhatWasGivenBack() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		// 10 tokens, one more every 100 s: a view of it empty stands for minutes.
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.01"), BigDecimal.ONE, 10);
		LeasedBucketStore store = turnedCold(background, slow, 9);
		// Another replica's idle lease goes back.
		this.shared.giveBack(KEY, slow, 3 * TOKEN);

		assertThat(store.tryConsume(KEY, slow, 1).consumed()).as("refused by the view").isFalse();
		assertThat(background.size()).as("the view is fresh: nothing asked").isZero();
		this.time.advanceMillis(1000);
		int calls = this.shared.calls();
		assertThat(store.tryConsume(KEY, slow, 1).consumed()).as("refused by the view, a second old").isFalse();
		assertThat(this.shared.calls()).as("no request waited for the shared store").isEqualTo(calls);
		background.runAll();

		assertThat(store.tryConsume(KEY, slow, 1).consumed()).as("decided from the background lease").isTrue();
		assertThat(this.shared.calls()).isEqualTo(calls + 1);
	}

	@Test
	void tryConsumeWhenThreeReplicasFloodAKeyOfTwoTokensThenBeyondExactByAtMostTheBound() {
		// Credit is the request itself here (a tenth of 2 tokens is less than one).
		Flood flood = new Flood(3, 20, 1, 1, 2);
		flood.run(10_000, -1);

		assertThat(flood.credits()).as("credit was given").isPositive();
		assertThat(flood.admitted).isLessThanOrEqualTo(flood.exact + 2 * 3);
	}

	@Test
	void tryConsumeWhenALeaseRunsDryWhileItsCreditCallIsOnItsWayAndTheStoreFailsThenTheFailureReachesTheRequestOnce() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		background.runAll(); // leased: the bucket, as last seen, holds 99
		for (int i = 0; i < CREDIT; i++) {
			// Credit again, its call queued and not yet run.
			assertThat(store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed()).isTrue();
		}
		this.shared.fail(new IllegalStateException("Redis is down"));
		int calls = this.shared.calls();

		// The lease and credit are spent while the bucket holds tokens: the request waits for
		// the credit's call on its way, which fails, and the failure mode decides it.
		assertThatIllegalStateException().isThrownBy(() -> store.tryConsume(KEY, HUNDRED_PER_SECOND, 1))
			.withMessage("Redis is down");
		assertThat(this.shared.calls()).as("one call, made once").isEqualTo(calls + 1);
		background.runAll();
		assertThat(this.shared.calls()).as("the queued call was the one made").isEqualTo(calls + 1);
	}

	@Test
	void tryConsumeWhenThreeReplicasFloodAKeyAndAnswersComeLateThenBeyondExactByAtMostTheBound() {
		Flood flood = new Flood(3, 20, 1, 1);
		flood.run(10_000, -1);

		assertThat(flood.admitted).isLessThanOrEqualTo(flood.exact + bound(3));
	}

	@Test
	void tryConsumeWhenThreeReplicasSendBurstsOfTheirCreditThenBeyondExactByAtMostTheBound() {
		// Each replica sends 11 requests at once every 110 ms (the bucket refills 11): every
		// burst finds its lease dry and asks for credit.
		Flood flood = new Flood(3, 20, 110, 11);
		flood.run(10_000, -1);

		assertThat(flood.credits()).as("credit was given again and again").isGreaterThan(30);
		assertThat(flood.admitted).isLessThanOrEqualTo(flood.exact + bound(3));
	}

	@Test
	void tryConsumeWhenBurstsAreRefusedAndThreeReplicasSendBurstsBeyondTheirCreditThenNoneWaitsAndTheBoundHolds() {
		// Bursts of 30, three times the credit, every 110 ms, answered only every 20 ms.
		Flood flood = new Flood(3, 20, 110, 30, 100, BurstHandling.REFUSE);
		flood.run(10_000, -1);

		assertThat(flood.sharedWaits()).as("no request waited for the shared store").isZero();
		assertThat(flood.admitted).isLessThanOrEqualTo(flood.exact + bound(3));
		// Each burst of each replica gets at least its credit while the bucket holds it.
		assertThat(flood.admitted).isGreaterThanOrEqualTo(flood.exact / 2);
	}

	@Test
	void tryConsumeWhenAReplicaDiesMidFloodThenBeyondExactByAtMostTheBoundAndItsCredit() {
		Flood flood = new Flood(3, 20, 110, 11);
		// The replica dies at 5 s with its calls unanswered: its credit is never charged.
		flood.run(10_000, 5_000);

		assertThat(flood.admitted).isLessThanOrEqualTo(flood.exact + bound(3) + CREDIT);
	}

	@Test
	void tryConsumeWhenSharedStoreDownThenCreditOnceAndThenTheFailure() {
		LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
		LeasedBucketStore store = replica(background);
		store.tryConsume(KEY, HUNDRED_PER_SECOND, 1);
		background.runAll();
		this.shared.fail(new IllegalStateException("Redis is down"));
		this.time.advanceMillis(300);

		int admitted = 0;
		int failed = 0;
		for (int i = 0; i < 100; i++) {
			try {
				admitted += store.tryConsume(KEY, HUNDRED_PER_SECOND, 1).consumed() ? 1 : 0;
			}
			catch (IllegalStateException ex) {
				failed++;
			}
			background.runAll();
			this.time.advanceMillis(10);
		}

		// One credit given before the failure was known, then every request reaches the
		// failure mode of the store around this one.
		assertThat(admitted).isLessThanOrEqualTo((int) CREDIT);
		assertThat(failed).isGreaterThanOrEqualTo(100 - (int) CREDIT);
	}

	/**
	 * A replica whose leases go back after 10 ms idle, and a key of it that turned cold 20 ms
	 * after one request's grant, its bucket drained of {@code drained} tokens before.
	 */
	private LeasedBucketStore turnedCold(LeasedBucketStoreTest.QueuedExecutor background, BucketLimits limits,
			long drained) {
		LeasedBucketStore store = new LeasedBucketStore(this.shared, LeaseSizing.defaults(), Duration.ofMillis(10),
				1000, background, this.time);
		this.shared.tryConsume(KEY, limits, drained);
		store.tryConsume(KEY, limits, 1);
		background.runAll(); // the grant shows what is left
		this.time.advanceMillis(20);
		store.stats(); // the idle lease goes back
		background.runAll();
		return store;
	}

	/**
	 * What credit may admit beyond an exact limiter with n replicas: at most the credit A of
	 * each replica outstanding, and as much again charged as debt on a view of the bucket
	 * that other replicas' charges had made stale, {@code 2 × n × A}.
	 */
	private static long bound(int replicas) {
		return 2 * replicas * CREDIT;
	}

	/**
	 * Replicas each sending {@code burst} requests for one key every {@code everyMillis}, on
	 * a bucket emptied at the start; the background of each answers only every
	 * {@code answerEveryMillis}. Counts what they admitted and what an exact bucket of the
	 * same limits admits of the same requests.
	 */
	private final class Flood {

		private final List<LeasedBucketStore> replicas = new ArrayList<>();

		private final List<LeasedBucketStoreTest.QueuedExecutor> backgrounds = new ArrayList<>();

		private final int answerEveryMillis;

		private final int everyMillis;

		private final int burst;

		private final BucketLimits limits;

		/** The bucket's capacity in tokens, and its refill per second: one burst factor. */
		private final int tokensPerSecond;

		long admitted;

		long exact;

		Flood(int replicas, int answerEveryMillis, int everyMillis, int burst) {
			this(replicas, answerEveryMillis, everyMillis, burst, 100);
		}

		Flood(int replicas, int answerEveryMillis, int everyMillis, int burst, int tokensPerSecond) {
			this(replicas, answerEveryMillis, everyMillis, burst, tokensPerSecond, BurstHandling.WAIT);
		}

		Flood(int replicas, int answerEveryMillis, int everyMillis, int burst, int tokensPerSecond,
				BurstHandling bursts) {
			this.tokensPerSecond = tokensPerSecond;
			this.limits = BucketLimits.of(BigDecimal.valueOf(tokensPerSecond), BigDecimal.ONE, 1);
			this.answerEveryMillis = answerEveryMillis;
			this.everyMillis = everyMillis;
			this.burst = burst;
			for (int i = 0; i < replicas; i++) {
				LeasedBucketStoreTest.QueuedExecutor background = new LeasedBucketStoreTest.QueuedExecutor();
				this.backgrounds.add(background);
				this.replicas.add(new LeasedBucketStore(SparseKeyCreditTest.this.shared, LeaseSizing.defaults(), bursts,
						Duration.ofSeconds(1), Duration.ofSeconds(1), 1000, background, SparseKeyCreditTest.this.time));
			}
			SparseKeyCreditTest.this.shared.tryConsume(KEY, this.limits, tokensPerSecond);
		}

		long sharedWaits() {
			return this.replicas.stream().mapToLong((replica) -> replica.leaseStats().sharedWaits()).sum();
		}

		long credits() {
			return this.replicas.stream().mapToLong((replica) -> replica.leaseStats().coldStarts()).sum();
		}

		/** The last replica dies at {@code diesAtMillis} (none if negative). */
		void run(int millis, int diesAtMillis) {
			double tokens = 0;
			int alive = this.replicas.size();
			for (int now = 0; now < millis; now++) {
				if (now == diesAtMillis) {
					alive--; // its queued calls never run
				}
				tokens = Math.min(this.tokensPerSecond, tokens + this.tokensPerSecond / 1000.0);
				for (int r = 0; r < alive && now % this.everyMillis == 0; r++) {
					for (int i = 0; i < this.burst; i++) {
						this.admitted += this.replicas.get(r).tryConsume(KEY, this.limits, 1).consumed() ? 1 : 0;
						if (tokens >= 1) {
							tokens--;
							this.exact++;
						}
					}
				}
				if (now % this.answerEveryMillis == 0) {
					for (int r = 0; r < alive; r++) {
						this.backgrounds.get(r).runAll();
					}
				}
				SparseKeyCreditTest.this.time.advanceMillis(1);
			}
		}

	}

}

