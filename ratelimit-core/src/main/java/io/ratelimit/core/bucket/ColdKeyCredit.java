package io.ratelimit.core.bucket;

import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The credit of a {@link LeasedBucketStore}: a key whose lease cannot pay for a request is
 * decided at once on a small allowance ({@link LeaseSizing#coldKeyShare()}) while the call
 * that charges it, queued with the credit, runs in the background. A cold key (never leased
 * here) gets it when the allowance covers the request and it had none before; a key whose
 * lease ran dry gets it again on the terms of {@link Lease#mayCreditAgain}.
 * <p>
 * Credit is given only where it will be paid. Besides the lease's own terms, it is refused
 * while the call cannot be queued (the background is saturated), for a while after any lease
 * call failed (all keys pause: the shared store is likely away), never again for a key whose
 * credit call failed until a grant shows its bucket (an outage would otherwise hand it out,
 * uncharged, every time the key goes cold), and, where a grant showed the key's bucket
 * holding less than the allowance, until it could have refilled that much. What the grants
 * showed outlives the leases, bounded like them: churning through more keys than that forgets
 * the oldest, whose next cold start gets credit again.
 * <p>
 * A credit call is sized twice: when the credit is given, for the allowance and a lease as
 * the key's demand asks, and again when it starts (see {@link #unitsAtStart}), for the credit
 * used by then and a lease only as large as the key's settled demand uses, so that a key seen
 * now and then is charged what it admitted and holds nothing to give back. Whatever a grant
 * cannot pay for is the lease's debt ({@link Lease#granted}), which the store charges to the
 * shared bucket.
 */
final class ColdKeyCredit {

	private final LeaseSizing sizing;

	private final CallQueue calls;

	/** What grants showed of the shared buckets of recent keys, outliving their leases. */
	private final Cache<BucketKey, SharedSeen> sharedSeen;

	/** No credit before this time: a lease call failed shortly before. */
	private volatile long pausedUntil;

	private final LongAdder given = new LongAdder();

	/**
	 * Creates the credit of a store.
	 * @param sizing the allowance, and the size of the calls that charge it
	 * @param maximumKeys the most keys whose buckets are remembered as grants showed them
	 * @param time the store's clock
	 * @param calls queues the call that charges a credit
	 */
	ColdKeyCredit(LeaseSizing sizing, long maximumKeys, TimeSource time, CallQueue calls) {
		this.sizing = sizing;
		this.calls = calls;
		this.pausedUntil = time.nanoTime();
		this.sharedSeen = Caffeine.newBuilder().maximumSize(maximumKeys).build();
	}

	/**
	 * Gives a cold key its credit, with the first lease call that will charge it already
	 * queued as the key's shared call, which requests beyond the credit join. Called under
	 * the lease's lock.
	 * @return whether the request may be decided on credit; if not, it waits for the shared
	 * store
	 */
	boolean startCold(BucketKey key, Lease lease, BucketLimits limits, long units, long now) {
		long allowance = this.sizing.coldKeyUnits(limits, units);
		if (!lease.mayStartOnCredit(allowance, units) || !allows(key, limits, allowance, now)) {
			return false;
		}
		return give(key, lease, limits, allowance, now);
	}

	/**
	 * Gives a key whose lease ran dry credit again when its shared bucket, as its last grant
	 * showed it and with what it refilled since, holds it (see {@link Lease#mayCreditAgain}):
	 * a key a replica sees now and then is charged for what it admitted instead of leasing
	 * tokens that it would give back unused. Called under the lease's lock.
	 */
	void giveAgain(BucketKey key, Lease lease, BucketLimits limits, long units, long now) {
		long allowance = this.sizing.coldKeyUnits(limits, units);
		if (!lease.mayCreditAgain(allowance, units, now) || !allows(key, limits, allowance, now)) {
			return;
		}
		give(key, lease, limits, allowance, now);
	}

	/**
	 * Whether neither a recent failure nor the key's bucket as last seen (too empty for the
	 * allowance, refilling since, or barred by a failed call) stands against its credit.
	 */
	private boolean allows(BucketKey key, BucketLimits limits, long allowance, long now) {
		if (now - this.pausedUntil < 0) {
			return false;
		}
		SharedSeen seen = this.sharedSeen.getIfPresent(key);
		return seen == null || !seen.limits().equals(limits) || (!seen.barred() && seen.holds(allowance, now));
	}

	/**
	 * What the key's last grant showed of its bucket when, refilling since, it cannot hold
	 * even the request: such a cold request is refused at once, from this view, as a lease on
	 * an empty bucket refuses. Null when the view holds the request (without credit, the
	 * request then waits for the shared store), when no grant was seen, and when a failure
	 * stands against credit (a key barred by a failed call, or all keys after one), whose
	 * requests go to the shared store and its failure mode.
	 */
	@Nullable SeenEmpty seenEmpty(BucketKey key, BucketLimits limits, long units, long now) {
		if (now - this.pausedUntil < 0) {
			return null;
		}
		SharedSeen seen = this.sharedSeen.getIfPresent(key);
		if (seen == null || seen.barred() || !seen.limits().equals(limits)) {
			return null;
		}
		long holdsRequestAt = seen.holdsFrom(Math.min(units, limits.capacityUnits()));
		if (now - holdsRequestAt >= 0) {
			return null;
		}
		return new SeenEmpty(holdsRequestAt - now, now - seen.seenAt() >= LeasedBucketStore.MAXIMUM_QUIET_NANOS);
	}

	/**
	 * Gives the credit, with the call that will charge it queued as the key's shared call.
	 * Called under the lease's lock.
	 */
	private boolean give(BucketKey key, Lease lease, BucketLimits limits, long allowance, long now) {
		long batch = this.sizing.batchUnits(limits, lease.demandPerSecond(now), lease.roundTripNanos());
		// Credit first: an executor that runs the call at once must find it to pay for.
		lease.startOnCredit(allowance);
		LeasedBucketStore.SharedCall call = new LeasedBucketStore.SharedCall(limits, allowance + batch, allowance,
				lease.generation(), now);
		lease.sharedCall(call);
		if (!this.calls.queue(key, lease, call)) {
			lease.sharedCall(null);
			lease.withdrawCredit();
			return false;
		}
		if (lease.lastLeaseFailed()) {
			return false; // the call ran at once and failed: its credit is withdrawn
		}
		this.given.increment();
		return true;
	}

	/**
	 * Sizes a credit call as it starts: it asks for the credit used by now rather than all of
	 * it, and for a lease only as large as the key's settled demand on this replica uses
	 * while it is held. The credit not used yet still comes out of what the grant brings.
	 * @param lease the lease the call was made for
	 * @param limits the bucket's shape the call was made for
	 * @param generation the lease's generation the call was made for
	 * @param asked what the call asks for so far
	 * @return what the call asks for; {@code asked} when the lease is gone or reshaped
	 */
	long unitsAtStart(Lease lease, BucketLimits limits, int generation, long asked) {
		lease.lock();
		try {
			if (lease.generation() != generation || lease.isRetired()) {
				return asked;
			}
			long batch = this.sizing.creditBatchUnits(limits, lease.settledDemandPerSecond(), lease.roundTripNanos());
			return Math.max(1, lease.usedCredit() + batch);
		}
		finally {
			lease.unlock();
		}
	}

	/**
	 * Remembers what a grant showed of the key's shared bucket (what it held after the grant,
	 * less the debt the grant did not pay), so that the key gets credit again, once its lease
	 * is gone, only when the bucket could hold it.
	 */
	void sawShared(BucketKey key, BucketLimits limits, long remainingUnits, long now) {
		if (this.sizing.coldKeyShare() == 0) {
			return;
		}
		this.sharedSeen.put(key, new SharedSeen(limits, false, now, remainingUnits));
	}

	/** A lease call of some key failed: no key gets credit for a while. */
	void pause(long now) {
		this.pausedUntil = now + LeasedBucketStore.QUIET_AFTER_FAILURE_NANOS;
	}

	/**
	 * A call that carried the key's credit failed: no credit for the key again until a grant
	 * shows its bucket, or an outage would hand it out, uncharged, every time the key goes
	 * cold.
	 */
	void bar(BucketKey key, BucketLimits limits, long now) {
		this.sharedSeen.put(key, new SharedSeen(limits, true, now, 0));
	}

	/** The times a key was decided on credit. */
	long given() {
		return this.given.sum();
	}

	/** Queues a key's shared call for the background. */
	@FunctionalInterface
	interface CallQueue {

		/**
		 * Queues the call.
		 * @return whether it was queued; {@code false} when the background is saturated or
		 * the store closes
		 */
		boolean queue(BucketKey key, Lease lease, LeasedBucketStore.SharedCall call);

	}

	/**
	 * When a key's shared bucket, as a grant showed it, could hold a cold key's credit.
	 *
	 * @param limits the bucket's shape then
	 * @param barred whether a failed call stands against credit until a grant is seen
	 * @param seenAt when the grant, or the failure, was seen
	 * @param remainingUnits what the bucket held after the grant, less the debt it left
	 */
	private record SharedSeen(BucketLimits limits, boolean barred, long seenAt, long remainingUnits) {

		/** When the bucket, refilling from what the grant showed, holds the units. */
		long holdsFrom(long units) {
			long missing = units - this.remainingUnits;
			return (missing > 0) ? this.seenAt + this.limits.nanosToRefill(missing) : this.seenAt;
		}

		boolean holds(long units, long now) {
			return now - holdsFrom(units) >= 0;
		}

	}

	/**
	 * A cold key's bucket as its last grant showed it: too empty for the request.
	 *
	 * @param nanosUntilRequest how long until it could hold the request, refilling since
	 * @param stale whether the grant is old enough to ask again: tokens other replicas gave
	 * back since (idle leases, a replica stopping) are not in the view, and a slow bucket's
	 * refill would keep them unused for hours
	 */
	record SeenEmpty(long nanosUntilRequest, boolean stale) {
	}

}
