package io.ratelimit.core.bucket;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Decides from tokens leased in advance from a shared bucket, so that a request does not
 * wait for the shared store while its key has a lease: the batched mode of global policies.
 *
 * <p>Each replica takes a batch of a key's tokens from the shared store (Bucket4j's
 * consume-as-much-as-possible, so the store is charged when the batch is taken: eager),
 * admits requests from it locally, and takes the next batch in the background when half of
 * the current one is used. A key this replica holds no lease of (a cold key) is decided at
 * once too, on credit: the replica may admit up to a small allowance of it
 * ({@link LeaseSizing#coldKeyShare()} of the capacity, or the request on a bucket that
 * refills it within a second) while its first
 * lease call, queued with the credit, runs in the background; requests beyond the credit
 * join that call. A cold key whose last grant showed its bucket too empty for the request is
 * refused from that view, with no call, and a view a second old is refreshed by a lease
 * taken in the background. The call asks for the
 * credit besides the batch, and whatever the shared bucket can no longer pay is charged to
 * it all the same, as a debt its refill pays off. Credit is given only where it will be
 * paid: not while the background is saturated (the call cannot be queued), not for a second
 * after a lease call failed, never again for a key whose credit call failed until a grant
 * shows its bucket, and, once a key's lease is gone, only when the last grant showed its
 * bucket holding the credit or it could have refilled that much since. With no allowance, a
 * cold key's first request waits for the lease. A request after a failed lease waits for
 * the shared store too, so that an outage reaches the failure mode of the store around this
 * one. Besides those, a request waits only in a burst: when its lease and credit cannot pay
 * for it while the bucket, as last seen, can, it waits once for the key's call on its way
 * (its refill, or the call charging its credit) and is decided by what lands, rather than be
 * refused what the fleet has to give; or, with {@link BurstHandling#REFUSE}, it is refused at
 * once. A request waits no longer in all than the store's longest wait (the shared store's
 * request timeout), though it may wait twice (for its key's first call, then a refill):
 * then one waiting for a refill is decided by what its lease holds, and one waiting for its
 * key's first call is failed.
 * <p>A key this replica sees now and then, Gubernator style: its credit call, sized when it
 * starts, asks for the credit used by then and for a lease only as large as the key's
 * settled demand uses while it is held, so a key seen once is charged what it admitted and
 * holds nothing to give back. When its lease cannot pay for a request it gets credit again
 * on the same terms as a cold key (nothing of it owed or on its way, the bucket as last seen
 * holding the credit), unless its last grant came short: a hot key, whose replicas share what
 * refills, keeps to leases. The key's concurrent requests wait for that one call, not each for a call of its
 * own, and a failure of it is thrown to each of them. A lease unused for {@code idleReturn},
 * or still held at {@link #close(Duration)}, goes back to the shared bucket.
 *
 * <p>Background work is bounded: at most {@value #MAXIMUM_QUEUED_TASKS} calls are in flight,
 * as many refills and as many returns queued, refills run first, and a return that finds its
 * queue full is dropped (counted in {@link LeaseStats#droppedReturns()}). The calls go
 * through the shared store's asynchronous methods, so a store that pipelines them carries
 * many keys' calls per round trip.
 *
 * <p>Accuracy, with n replicas, a largest lease L (in tokens; a lease holds at least the
 * request it is taken for, so L is the heaviest request's cost if that is more) and a
 * refill rate R: the
 * shared bucket is charged before any token is used, so the replicas together never admit
 * more than an exact limiter would (none over); they admit less by at most the tokens held
 * in leases at a time, {@code 1.5 × n × L}, and a replica that dies loses its lease, at most
 * {@code 1.5 × L}. A replica whose lease ran dry while the shared bucket is empty asks
 * again only after the time the bucket takes to refill a lease ({@code L / R}). Credit is
 * the exception to "none over": with an allowance A per cold key (the share of the capacity,
 * or the heaviest request's cost where that is more and refills within a second), n replicas
 * admit at most
 * {@code n × A} of a key beyond an exact limiter for the time of one lease call, and the
 * debt charged for it delays the key's later admissions by as much. A key gets credit again
 * only when the bucket, as last seen, could hold it, so a client cannot collect credit by
 * letting its key go cold; an attacker would have to churn through as many keys as the store
 * remembers ({@code maximumLeases}) between two requests of one key. A replica that dies
 * before its credit call returns leaves at most A uncharged, and so does a key's credit when
 * the shared store fails (once per key until it answers again). With credit given again, a
 * replica still holds at most one credit of a key that no answer has settled, and gives the
 * next only when its last answer, with the refill since, shows the bucket holding it; credit
 * given on a view that other replicas' charges had made stale is charged as debt and repaid
 * before the view allows more. So at any time the replicas admit at most {@code 2 × n × A}
 * of a key beyond an exact limiter, whatever the time d from a credit to the answer of its
 * charge; d only sets how long the excess stands, and how often a replica may give credit
 * (once per d).
 */
public final class LeasedBucketStore implements BucketStore, AutoCloseable {

	/**
	 * The most refills, and the most returns, queued for the background at a time: bounded,
	 * so that identity churn cannot grow the queue with a return per idle key.
	 */
	static final int MAXIMUM_QUEUED_TASKS = 1000;

	private static final int DEFAULT_CLOSE_SECONDS = 2;

	/**
	 * How long a replica leaves a key's shared bucket alone after a background lease failed,
	 * and gives no key credit.
	 */
	static final long QUIET_AFTER_FAILURE_NANOS = Duration.ofSeconds(1).toNanos();

	/**
	 * The longest a replica leaves a key's shared bucket alone after a short grant: one call
	 * a second per key at most while its bucket is empty and its callers keep coming.
	 */
	static final long MAXIMUM_QUIET_NANOS = Duration.ofSeconds(1).toNanos();

	private final LeasableBucketStore shared;

	private final LeaseSizing sizing;

	private final LeaseWork work;

	private final TimeSource time;

	private final Cache<BucketKey, Lease> leases;

	private final LongAdder localDecisions = new LongAdder();

	private final LongAdder sharedWaits = new LongAdder();

	/** The longest a request waits for a call of its key unless told. */
	private static final Duration DEFAULT_LONGEST_WAIT = Duration.ofSeconds(1);

	/** The longest a request waits for a call of its key that another started. */
	private final long longestWaitNanos;

	private final LongAdder refills = new LongAdder();

	private final LongAdder refillFailures = new LongAdder();

	private final LongAdder returnedUnits = new LongAdder();

	private final ColdKeyCredit coldKeyCredit;

	private final LongAdder owedUnits = new LongAdder();

	private final BurstHandling bursts;

	private final LongAdder burstRequests = new LongAdder();

	/**
	 * Creates a store whose bursts wait for the key's call on its way
	 * ({@link BurstHandling#WAIT}), a second at most.
	 * @param shared the shared store leases come from
	 * @param sizing how large the leases are
	 * @param idleReturn how long an unused lease is kept before it goes back
	 * @param maximumLeases the most keys with a lease; the least used give theirs back first
	 * @param background runs the background leases and returns (the store queues them
	 * itself, bounded, and hands the executor one task per queued one)
	 * @param time the clock of demand, idleness and the quiet periods
	 */
	public LeasedBucketStore(LeasableBucketStore shared, LeaseSizing sizing, Duration idleReturn, long maximumLeases,
			Executor background, TimeSource time) {
		this(shared, sizing, BurstHandling.WAIT, DEFAULT_LONGEST_WAIT, idleReturn, maximumLeases, background, time);
	}

	/**
	 * Creates a store.
	 * @param shared the shared store leases come from
	 * @param sizing how large the leases are
	 * @param bursts what a request gets that its key's lease and credit cannot pay for
	 * while the shared bucket may
	 * @param longestWait the longest a request waits, in all, for the shared store's calls
	 * of its key (its first call, then a refill): the shared store's request timeout, so
	 * that it waits no longer than for a call of its own; then a request waiting for a
	 * refill is decided by what its lease holds, and one waiting for its key's first call is
	 * failed, for the failure mode of the store around this one to decide
	 * @param idleReturn how long an unused lease is kept before it goes back
	 * @param maximumLeases the most keys with a lease; the least used give theirs back first
	 * @param background runs the background leases and returns (the store queues them
	 * itself, bounded, and hands the executor one task per queued one)
	 * @param time the clock of demand, idleness and the quiet periods
	 */
	public LeasedBucketStore(LeasableBucketStore shared, LeaseSizing sizing, BurstHandling bursts,
			Duration longestWait, Duration idleReturn, long maximumLeases, Executor background, TimeSource time) {
		this.shared = Objects.requireNonNull(shared, "shared must not be null");
		this.sizing = Objects.requireNonNull(sizing, "sizing must not be null");
		this.bursts = Objects.requireNonNull(bursts, "bursts must not be null");
		this.longestWaitNanos = Objects.requireNonNull(longestWait, "longestWait must not be null").toNanos();
		if (this.longestWaitNanos <= 0) {
			throw new IllegalArgumentException("The longest wait must be positive, but was " + longestWait);
		}
		this.work = new LeaseWork(Objects.requireNonNull(background, "background must not be null"),
				MAXIMUM_QUEUED_TASKS);
		this.time = Objects.requireNonNull(time, "time must not be null");
		this.coldKeyCredit = new ColdKeyCredit(sizing, maximumLeases, time,
				(key, lease, call) -> this.work.refill(() -> call.runInBackground(key, lease, this)));
		this.leases = Caffeine.newBuilder()
			.maximumSize(maximumLeases)
			.expireAfterAccess(idleReturn)
			.ticker(time::nanoTime)
			// Removal notifications only queue a return (bounded) and run where the cache's
			// upkeep does: on the background executor they would queue up unbounded behind
			// refills and returns that wait for a hung store.
			.executor(Runnable::run)
			.scheduler(Scheduler.systemScheduler())
			.recordStats()
			.removalListener((BucketKey key, Lease lease, RemovalCause cause) -> {
				if (key != null && lease != null) {
					giveBack(key, lease.retire());
				}
			})
			.build();
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens < 1) {
			throw new IllegalArgumentException("At least one token must be consumed, but was " + tokens);
		}
		long units = Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN);
		boolean waitedForRefill = false;
		boolean countedBurst = false;
		// Set at the first wait: a request waits for the shared store no longer in all than the
		// longest wait, though it may wait twice (for its key's first call, then a refill).
		long waitDeadline = 0;
		boolean waited = false;
		while (true) {
			// A quiet read first: a capturing loader would be allocated on every decision.
			Lease lease = this.leases.getIfPresent(key);
			if (lease == null) {
				lease = this.leases.get(key, (absent) -> new Lease(limits));
			}
			SharedCall wait;
			CompletableFuture<Void> refill;
			boolean burst = false;
			lease.lock();
			try {
				if (lease.isRetired()) {
					continue; // given back meanwhile: take the key's new lease
				}
				if (!lease.limits().equals(limits)) {
					giveBack(key, lease.reshape(limits));
				}
				long now = this.time.nanoTime();
				lease.demand(units, now);
				if (lease.units() < units && lease.mustWaitForShared()) {
					if (this.coldKeyCredit.startCold(key, lease, limits, units, now)) {
						return decide(key, lease, limits, units, now);
					}
					ColdKeyCredit.SeenEmpty empty = (lease.lastLeaseFailed() || lease.sharedCall() != null) ? null
							: this.coldKeyCredit.seenEmpty(key, limits, units, now);
					if (empty != null) {
						return refusedAsSeen(key, lease, limits, units, now, empty);
					}
					// Beyond the credit, a cold key's request joins its first lease call.
					SharedCall onItsWay = lease.sharedCall();
					if (onItsWay != null && onItsWay.credit > 0 && !lease.lastLeaseFailed()) {
						if (!countedBurst) {
							countedBurst = true;
							this.burstRequests.increment();
						}
						if (this.bursts == BurstHandling.REFUSE) {
							return refusedBurst(key, lease, limits, units, now);
						}
					}
					wait = sharedCall(lease, units, now);
					refill = null;
				}
				else {
					if (lease.units() < units) {
						this.coldKeyCredit.giveAgain(key, lease, limits, units, now);
					}
					burst = lease.units() < units && !waitedForRefill && lease.sharedCouldPay(units);
					if (burst && this.bursts == BurstHandling.REFUSE) {
						Consumption refused = refusedBurst(key, lease, limits, units, now);
						if (!countedBurst && (lease.isRefilling() || lease.sharedCall() != null)) {
							this.burstRequests.increment(); // as many as would have waited
						}
						return refused;
					}
					refill = burst ? refillFor(key, lease, units, now) : null;
					// Or the call charging the key's credit, on its way instead of a refill.
					wait = (burst && refill == null) ? lease.sharedCall() : null;
					if ((refill != null || wait != null) && !countedBurst) {
						countedBurst = true;
						this.burstRequests.increment();
					}
					if (refill == null && wait == null) {
						return decide(key, lease, limits, units, now);
					}
				}
			}
			finally {
				lease.unlock();
			}
			// Outside the lock: the key's other requests wait for this one call, never for a
			// call each in turn, and a hung store costs each of them one timeout at most.
			long started = System.nanoTime();
			if (!waited) {
				waited = true;
				waitDeadline = started + this.longestWaitNanos;
			}
			long budget = waitDeadline - started;
			if (wait != null) {
				waitedForRefill |= burst;
				wait.await(key, lease, this, budget);
			}
			else {
				// A lease used up while the shared bucket still holds tokens (demand outran the
				// lease, or its refill was late): refusing would refuse what the fleet has to
				// give, so the request waits for the refill once and is decided by what lands.
				waitedForRefill = true;
				this.sharedWaits.increment();
				awaitRefill(refill, budget);
			}
		}
	}

	/**
	 * Waits for a refill to land, at most what is left of the request's wait (a refill
	 * queued behind others may not have started, or one that never ran, its queue closed at
	 * shutdown, would hold the request): the request is then decided by what the lease
	 * holds, as any request. A failed
	 * refill fails the request, as a failed shared call fails the requests waiting for it:
	 * the store's failure mode decides it, and it never waits for a second call.
	 */
	private static void awaitRefill(CompletableFuture<Void> refill, long budgetNanos) {
		try {
			awaitCall(refill, budgetNanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (TimeoutException ex) {
			// Decided by what the lease holds now, like any request.
		}
	}

	/**
	 * Waits for a call of the key that another started to end, at most what is left of the
	 * request's wait.
	 * @throws TimeoutException if it has not ended by then
	 * @throws InterruptedException if the request's thread was interrupted meanwhile
	 */
	private static void awaitCall(CompletableFuture<Void> call, long budgetNanos)
			throws TimeoutException, InterruptedException {
		try {
			call.get(Math.max(0, budgetNanos), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable failure = (ex.getCause() instanceof CompletionException && ex.getCause().getCause() != null)
					? ex.getCause().getCause() : ex.getCause();
			throw (failure instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException("The shared store's call failed", failure);
		}
	}

	/**
	 * The refill a request waits for when the lease cannot pay for it: the one on its way, or
	 * one started now. Null when none can be (queue full, or a short grant asks for quiet).
	 * Called under the lock.
	 */
	private @Nullable CompletableFuture<Void> refillFor(BucketKey key, Lease lease, long units, long now) {
		refillIfLow(key, lease, units, now);
		return lease.refill();
	}

	private Consumption decide(BucketKey key, Lease lease, BucketLimits limits, long units, long now) {
		boolean admitted = lease.units() >= units;
		if (admitted) {
			lease.take(units);
			this.localDecisions.increment();
		}
		refillIfLow(key, lease, units, now);
		// Below zero when a debt charged for credit left the shared bucket so: the wait counts
		// the debt, and the field reports nothing left.
		long known = lease.units() + lease.sharedRemainingUnits();
		if (admitted) {
			return new Consumption(true, Math.max(0, known), 0);
		}
		// What the shared bucket held at the last grant may be spent by other replicas since,
		// or not be this replica's yet: a refusal reports less than the request needs, as a
		// refusal by one bucket does, never enough to pay for it.
		long missing = Math.max(1, units - known);
		return new Consumption(false, Math.max(0, Math.min(known, units - 1)),
				Math.max(1, limits.nanosToRefill(Math.min(missing, limits.capacityUnits()))));
	}

	/**
	 * Refuses a burst at once ({@link BurstHandling#REFUSE}), starting the key's refill if
	 * none is on its way. The wait reported is a second at most: the bucket, as last seen,
	 * holds the request, or a cold key's bucket is not known yet, and the key's call on its
	 * way brings what the next request decides from. Called under the lock.
	 */
	private Consumption refusedBurst(BucketKey key, Lease lease, BucketLimits limits, long units, long now) {
		Consumption refused = decide(key, lease, limits, units, now);
		return refused.consumed() ? refused
				: new Consumption(false, refused.remainingUnits(), Math.min(refused.nanosToWait(), MAXIMUM_QUIET_NANOS));
	}

	/**
	 * Refuses a cold key's request because its bucket, as the key's last grant showed it and
	 * refilling since, cannot hold the request: a lease on an empty bucket refuses so too, and
	 * waiting for the shared store would put a round trip on every request of a key that
	 * turns cold between requests. A view a second old is refreshed by a lease taken in the
	 * background (one call a second at most, as for a lease after a short grant), and the
	 * key's next requests decide from what it brings. Called under the lock.
	 */
	private Consumption refusedAsSeen(BucketKey key, Lease lease, BucketLimits limits, long units, long now,
			ColdKeyCredit.SeenEmpty empty) {
		if (empty.stale()) {
			refillIfLow(key, lease, units, now);
		}
		return new Consumption(false, 0, Math.max(1, empty.nanosUntilRequest()));
	}

	/**
	 * Gives the tokens back to this replica's lease of the key, where the request took them
	 * from; the lease goes back to the shared bucket with the rest. When the lease is gone
	 * (evicted, idle or over the bound, or reshaped by a policy change, even between the look-up
	 * and the lock), the tokens go straight back to the shared bucket: added to a retired
	 * lease they would be lost.
	 */
	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens < 1) {
			return;
		}
		long units = Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN);
		Lease lease = this.leases.getIfPresent(key);
		if (lease != null) {
			lease.lock();
			try {
				if (!lease.isRetired() && lease.limits().equals(limits)) {
					lease.add(units);
					return;
				}
			}
			finally {
				lease.unlock();
			}
		}
		giveBack(key, new Returned(limits, units));
	}

	@Override
	public BucketStoreStats stats() {
		this.leases.cleanUp();
		return new BucketStoreStats(this.leases.estimatedSize(), this.leases.stats().evictionCount());
	}

	/**
	 * Returns what the store has done since it was created.
	 * @return the counts
	 */
	public LeaseStats leaseStats() {
		long leased = 0;
		for (Lease lease : this.leases.asMap().values()) {
			leased += lease.units();
		}
		return new LeaseStats(this.leases.estimatedSize(), leased, this.localDecisions.sum(), this.sharedWaits.sum(),
				this.refills.sum(), this.refillFailures.sum(), this.returnedUnits.sum(), this.work.droppedReturns(),
				this.coldKeyCredit.given(), this.owedUnits.sum(), this.work.pending(), this.burstRequests.sum());
	}

	/**
	 * Returns this replica's lease of a key, for {@code explain}.
	 * @param key the bucket key
	 * @return the lease, or {@code null} when this replica holds none
	 */
	public @Nullable LeaseState lease(BucketKey key) {
		Lease lease = this.leases.getIfPresent(key);
		if (lease == null) {
			return null;
		}
		lease.lock();
		try {
			long now = this.time.nanoTime();
			return new LeaseState(lease.units(), this.sizing.batchUnits(lease.limits(), lease.demandPerSecond(now),
					lease.roundTripNanos()), lease.demandPerSecond(now) / BucketLimits.UNITS_PER_TOKEN,
					lease.sharedRemainingUnits(), lease.isRefilling(), lease.roundTripNanos(), lease.credit());
		}
		finally {
			lease.unlock();
		}
	}

	/**
	 * Gives every lease back to the shared bucket, waiting at most
	 * {@value #DEFAULT_CLOSE_SECONDS} seconds.
	 */
	@Override
	public void close() {
		close(Duration.ofSeconds(DEFAULT_CLOSE_SECONDS));
	}

	/**
	 * Gives every lease back to the shared bucket, in parallel on the background executor,
	 * waiting for the returns until a deadline: a store that hangs must not hold shutdown
	 * up for its timeout once per lease. Leases not returned by then are lost, as a stopped
	 * replica's are (see the accuracy bound above); calls still in flight are the
	 * executor's to interrupt.
	 * @param deadline the longest wait
	 * @return whether every lease went back in time
	 */
	public boolean close(Duration deadline) {
		this.work.closing();
		for (var entry : this.leases.asMap().entrySet()) {
			Returned returned = entry.getValue().retire();
			if (returned.units() != 0) {
				this.work.giveBackAtClose(returnTask(entry.getKey(), returned));
			}
		}
		this.leases.invalidateAll();
		return this.work.awaitIdle(deadline);
	}

	/**
	 * The key's lease call that requests wait for (the key's first on this replica, or the
	 * first after a failure): joins the one in flight, or starts it. Called under the lock.
	 */
	private SharedCall sharedCall(Lease lease, long units, long now) {
		SharedCall call = lease.sharedCall();
		if (call == null) {
			long batch = this.sizing.batchUnits(lease.limits(), lease.demandPerSecond(now), lease.roundTripNanos());
			call = new SharedCall(lease.limits(), units + batch + lease.credit(), lease.credit(), lease.generation(),
					now);
			lease.sharedCall(call);
		}
		return call;
	}

	/**
	 * Runs a key's shared lease call for the requests waiting for it; a failure is thrown to
	 * each of them.
	 */
	private void leaseForRequests(BucketKey key, Lease lease, SharedCall call) {
		LeasableBucketStore.Grant grant;
		try {
			grant = this.shared.lease(key, call.limits, call.units);
		}
		catch (RuntimeException | Error ex) {
			callFailed(key, lease, call);
			throw ex;
		}
		callAnswered(key, lease, call, grant);
	}

	private void callAnswered(BucketKey key, Lease lease, SharedCall call, LeasableBucketStore.Grant grant) {
		lease.lock();
		try {
			// Cleared with the grant in one step: a request in between would start another call.
			lease.sharedCall(null);
			landGrant(key, lease, call.limits, call.generation, grant, call.started, call.units, call.credit);
		}
		finally {
			lease.unlock();
		}
	}

	private void callFailed(BucketKey key, Lease lease, SharedCall call) {
		long now = this.time.nanoTime();
		this.coldKeyCredit.pause(now);
		if (call.credit > 0) {
			this.coldKeyCredit.bar(key, call.limits, now);
		}
		lease.lock();
		try {
			lease.sharedCall(null); // the key's next request tries again
			if (lease.generation() == call.generation) {
				lease.creditFailed(call.credit);
			}
		}
		finally {
			lease.unlock();
		}
	}

	/**
	 * Takes the next lease in the background when this one runs low, or cannot hold a
	 * request of the given units: a lease is at least as large as the request it serves, or
	 * a request heavier than the largest lease (a write of five points on a bucket of thirty)
	 * would find every lease too small and be refused however full the shared bucket is.
	 */
	private void refillIfLow(BucketKey key, Lease lease, long units, long now) {
		if (lease.isRefilling() || lease.sharedCall() != null || !lease.isQuietOver(now)) {
			return;
		}
		double demand = lease.demandPerSecond(now);
		long batch = Math.max(this.sizing.batchUnits(lease.limits(), demand, lease.roundTripNanos()),
				Math.min(units, lease.limits().capacityUnits()));
		// Ask when half the lease is used, or earlier if the lease would not last while the
		// next one is on its way: at 20 ms to Redis, half a lease ran dry first and the
		// replicas lagged the refill (+6.3 % over the limit as the full bucket drained late).
		long usedDuringRoundTrip = (long) Math.min(batch, demand * lease.roundTripNanos() / 1e9);
		if (lease.units() >= units && lease.units() >= Math.max(batch / 2, usedDuringRoundTrip)) {
			return;
		}
		lease.refilling(true);
		BucketLimits limits = lease.limits();
		int generation = lease.generation();
		if (!this.work.refill(() -> refill(key, lease, limits, batch, generation))) {
			lease.refilling(false); // queue full: the key asks again at its next request
		}
	}

	private CompletionStage<?> refill(BucketKey key, Lease lease, BucketLimits limits, long batch, int generation) {
		long started = this.time.nanoTime();
		return start(() -> this.shared.leaseAsync(key, limits, batch)).handle((grant, failure) -> {
			if (failure != null) {
				this.refillFailures.increment();
				this.coldKeyCredit.pause(this.time.nanoTime());
				lease.lock();
				try {
					lease.refillFailed(failure);
					lease.failed();
					lease.quietUntil(this.time.nanoTime(), QUIET_AFTER_FAILURE_NANOS);
				}
				finally {
					lease.unlock();
				}
				return null;
			}
			this.refills.increment();
			lease.lock();
			try {
				lease.refilling(false);
				landGrant(key, lease, limits, generation, grant, started, batch, 0);
			}
			finally {
				lease.unlock();
			}
			return null;
		});
	}

	/** Starts a call of the shared store; one that throws instead of failing its stage fails it. */
	private static <T> CompletionStage<T> start(Supplier<CompletionStage<T>> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Adds a grant to the lease it was taken for, paying first for the credit the call
	 * carried, or sends it back whole when that lease is gone (retired or reshaped: its
	 * credit went with it, as a debt if it was used). Called under the lock.
	 */
	private void landGrant(BucketKey key, Lease lease, BucketLimits limits, int generation,
			LeasableBucketStore.Grant grant, long started, long asked, long credit) {
		if (lease.isRetired() || lease.generation() != generation) {
			giveBack(key, new Returned(limits, grant.units()));
			// What the bucket holds with them back: the key's next lease decides from it.
			this.coldKeyCredit.sawShared(key, limits, grant.remainingUnits() + grant.units(), this.time.nanoTime());
			return;
		}
		long now = this.time.nanoTime();
		long owed = lease.granted(grant, asked, now, now - started, credit);
		this.coldKeyCredit.sawShared(key, limits, grant.remainingUnits() - owed, now);
		giveBack(key, new Returned(limits, -owed));
		lease.quietUntil(now, quietPeriod(limits, asked, grant));
	}

	/**
	 * After a short grant the shared bucket is empty: leave it alone until it could fill the
	 * rest, but at most {@link #MAXIMUM_QUIET_NANOS}, since other replicas give tokens back
	 * meanwhile (unused leases, when idle or at shutdown) that a slow bucket's refill time
	 * would leave unused for minutes while this replica refuses.
	 */
	private static long quietPeriod(BucketLimits limits, long asked, LeasableBucketStore.Grant grant) {
		long missing = asked - grant.units();
		return (missing > 0)
				? Math.min(MAXIMUM_QUIET_NANOS, limits.nanosToRefill(Math.min(missing, limits.capacityUnits()))) : 0;
	}

	/**
	 * Gives unused units back, or charges units admitted on credit that were never paid for:
	 * a charge goes with the refills, ahead of returns, and is dropped only when both queues
	 * are full.
	 */
	private void giveBack(BucketKey key, Returned returned) {
		if (returned.units() == 0) {
			return;
		}
		LeaseWork.Call task = returnTask(key, returned);
		if (returned.units() > 0 || !this.work.refill(task)) {
			this.work.giveBack(task);
		}
	}

	private LeaseWork.Call returnTask(BucketKey key, Returned returned) {
		return () -> {
			CompletionStage<Void> call = start(() -> (returned.units() > 0)
					? this.shared.giveBackAsync(key, returned.limits(), returned.units())
					: this.shared.chargeAsync(key, returned.limits(), -returned.units()));
			return call.handle((done, failure) -> {
				// A failure loses unused units the shared bucket refills in time anyway, or a
				// debt within the bound of credit.
				if (failure == null) {
					if (returned.units() > 0) {
						this.returnedUnits.add(returned.units());
					}
					else {
						this.owedUnits.add(-returned.units());
					}
				}
				return null;
			});
		};
	}

	/**
	 * Counts of a {@link LeasedBucketStore}.
	 *
	 * @param leases the keys with a lease on this replica
	 * @param leasedUnits the units those leases hold
	 * @param localDecisions the requests decided from a lease
	 * @param sharedWaits the requests that waited for the shared store
	 * @param refills the background leases taken
	 * @param refillFailures the background leases that failed
	 * @param returnedUnits the units given back to the shared store
	 * @param droppedReturns the leases never given back: the queue was full, or the close
	 * deadline passed
	 * @param coldStarts the times a key was decided on credit: a cold key, or one whose lease
	 * ran dry while its bucket, as last seen, held the credit
	 * @param owedUnits the units admitted on credit that a grant could not pay for, charged to
	 * the shared bucket as a debt
	 * @param pendingCalls the background calls (leases, returns, charges) queued or in flight
	 * @param bursts the requests that their key's lease and credit could not pay for while
	 * the shared bucket, as last seen, could or the key's credit call was on its way, and
	 * the key's call was on its way: each waited for it once, or was refused, as the store's
	 * {@link BurstHandling} says
	 */
	public record LeaseStats(long leases, long leasedUnits, long localDecisions, long sharedWaits, long refills,
			long refillFailures, long returnedUnits, long droppedReturns, long coldStarts, long owedUnits,
			long pendingCalls, long bursts) {
	}

	/**
	 * One key's lease on this replica.
	 *
	 * @param leasedUnits the units this replica may still admit without the shared store
	 * @param nextLeaseUnits the size of the next lease
	 * @param demandPerSecond the key's recent demand on this replica, in tokens per second
	 * @param sharedRemainingUnits the units the shared bucket held after the last lease
	 * @param refilling whether a background lease is in flight
	 * @param roundTripNanos how long the last lease took
	 * @param creditUnits the credit given that no grant has paid for yet
	 */
	public record LeaseState(long leasedUnits, long nextLeaseUnits, double demandPerSecond, long sharedRemainingUnits,
			boolean refilling, long roundTripNanos, long creditUnits) {
	}

	record Returned(BucketLimits limits, long units) {
	}

	/**
	 * One lease call of a key that its requests wait for: whichever of them comes first
	 * makes it, the others wait for its outcome.
	 */
	static final class SharedCall {

		private final BucketLimits limits;

		/** What the call asks for; a background call of credit sizes it when it starts. */
		private volatile long units;

		private final long credit;

		private final int generation;

		private final long started;

		private final AtomicBoolean claimed = new AtomicBoolean();

		private final CompletableFuture<Void> done = new CompletableFuture<>();

		SharedCall(BucketLimits limits, long units, long credit, int generation, long started) {
			this.limits = limits;
			this.units = units;
			this.credit = credit;
			this.generation = generation;
			this.started = started;
		}

		/** Makes the call from the background, unless a waiting request made it already. */
		CompletionStage<?> runInBackground(BucketKey key, Lease lease, LeasedBucketStore store) {
			if (!this.claimed.compareAndSet(false, true)) {
				return this.done;
			}
			CompletionStage<LeasableBucketStore.Grant> call;
			try {
				if (this.credit > 0) {
					this.units = store.coldKeyCredit.unitsAtStart(lease, this.limits, this.generation, this.units);
				}
				call = start(() -> store.shared.leaseAsync(key, this.limits, this.units));
			}
			catch (RuntimeException | Error ex) {
				// Not started: ends as a failed call, or the key's requests would join it forever.
				call = CompletableFuture.failedFuture(ex);
			}
			return call.handle((grant, failure) -> {
				try {
					if (failure == null) {
						store.callAnswered(key, lease, this, grant);
						store.refills.increment();
						this.done.complete(null);
					}
					else {
						store.callFailed(key, lease, this);
						store.refillFailures.increment();
						this.done.completeExceptionally((failure instanceof CompletionException
								&& failure.getCause() != null) ? failure.getCause() : failure);
					}
				}
				catch (RuntimeException | Error ex) {
					// The requests waiting for the call must not wait for an outcome never set.
					this.done.completeExceptionally(ex);
					throw ex;
				}
				return null;
			});
		}

		/**
		 * Makes the call, unless the background or another request did (within the shared
		 * store's own timeout: a call left unmade would hold the key's later requests), or
		 * waits for it, at most what is left of the request's wait.
		 */
		void await(BucketKey key, Lease lease, LeasedBucketStore store, long budgetNanos) {
			if (this.claimed.compareAndSet(false, true)) {
				store.sharedWaits.increment();
				try {
					store.leaseForRequests(key, lease, this);
					this.done.complete(null);
				}
				catch (RuntimeException | Error ex) {
					this.done.completeExceptionally(ex);
					throw ex;
				}
				return;
			}
			try {
				awaitCall(this.done, budgetNanos);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the key's lease call", ex);
			}
			catch (TimeoutException ex) {
				// No lease to decide from: a timeout, as a call of the request's own would be.
				throw new IllegalStateException("The shared store did not answer the key's call within "
						+ Duration.ofNanos(store.longestWaitNanos).toMillis() + " ms", ex);
			}
		}

	}

}
