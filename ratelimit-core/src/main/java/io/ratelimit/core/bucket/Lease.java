package io.ratelimit.core.bucket;

import java.util.concurrent.CompletableFuture;

import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * One key's lease on this replica: the units it may admit without the shared store, and what
 * sizes and times its next lease. Guarded by its own lock (a request of the key and the
 * background lease of the key take turns).
 */
final class Lease {

	/** Demand is measured over windows of this length and smoothed across them. */
	private static final long DEMAND_WINDOW_NANOS = 100_000_000L;

	private final ReentrantLock lock = new ReentrantLock();

	private BucketLimits limits;

	private long units;

	private long sharedRemainingUnits;

	/** When the last grant arrived: the time of {@code sharedRemainingUnits}. */
	private long sharedSeenAt;

	/** Whether the last grant brought less than it asked for: the shared bucket ran dry. */
	private boolean lastGrantShort;

	/**
	 * Units granted here on credit, before the shared bucket was charged for them: a cold
	 * key's allowance, until a lease call covers it.
	 */
	private long credit;

	private boolean creditGiven;

	/**
	 * Changed by a reshape and by retirement, so that a grant for the lease as it was goes
	 * back instead of joining the lease as it is.
	 */
	private int generation;

	private boolean everLeased;

	private boolean lastLeaseFailed;

	/** The refill on its way, completed when it lands or fails; null when none is. */
	private @Nullable CompletableFuture<Void> refill;

	private boolean retired;

	private LeasedBucketStore.@Nullable SharedCall sharedCall;

	private long quietUntil;

	private boolean quiet;

	private long roundTripNanos;

	private long windowStart;

	private long windowUnits;

	private double smoothedDemand;

	private boolean demandSeen;

	Lease(BucketLimits limits) {
		this.limits = limits;
	}

	void lock() {
		this.lock.lock();
	}

	void unlock() {
		this.lock.unlock();
	}

	BucketLimits limits() {
		return this.limits;
	}

	long units() {
		return this.units;
	}

	long sharedRemainingUnits() {
		return this.sharedRemainingUnits;
	}

	long roundTripNanos() {
		return this.roundTripNanos;
	}

	boolean isRefilling() {
		return this.refill != null;
	}

	void refilling(boolean refilling) {
		if (refilling) {
			this.refill = new CompletableFuture<>();
		}
		else if (this.refill != null) {
			this.refill.complete(null);
			this.refill = null;
		}
	}

	/** Ends the refill on its way with its failure, which the requests waiting for it get. */
	void refillFailed(Throwable failure) {
		if (this.refill != null) {
			this.refill.completeExceptionally(failure);
			this.refill = null;
		}
	}

	/** The refill on its way, done when it has landed or failed; null when none is. */
	@Nullable CompletableFuture<Void> refill() {
		return this.refill;
	}

	/**
	 * Whether the shared bucket, as the last grant showed it, holds what this lease lacks
	 * for a request: then refusing the request would refuse what the fleet has to give.
	 */
	boolean sharedCouldPay(long units) {
		return this.sharedRemainingUnits >= units - this.units;
	}

	/** The lease call in flight that the key's requests wait for, if any. */
	LeasedBucketStore.@Nullable SharedCall sharedCall() {
		return this.sharedCall;
	}

	void sharedCall(LeasedBucketStore.@Nullable SharedCall sharedCall) {
		this.sharedCall = sharedCall;
	}

	boolean isRetired() {
		return this.retired;
	}

	long credit() {
		return this.credit;
	}

	int generation() {
		return this.generation;
	}

	boolean lastLeaseFailed() {
		return this.lastLeaseFailed;
	}

	/**
	 * A lease call that carried credit failed: the credit not used yet is withdrawn (nothing
	 * will charge it while the shared store is away); what was used stays owed.
	 */
	void creditFailed(long callCredit) {
		this.lastLeaseFailed = true;
		long unused = Math.max(0, Math.min(Math.min(this.units, this.credit), callCredit));
		this.units -= unused;
		this.credit -= unused;
	}

	/**
	 * Whether a request may be decided on credit: the key was never leased here, nor given
	 * credit before, and the allowance covers the request.
	 */
	boolean mayStartOnCredit(long allowanceUnits, long units) {
		return !this.everLeased && !this.lastLeaseFailed && !this.creditGiven && allowanceUnits >= units;
	}

	/**
	 * Whether a key leased before may be decided on credit again, Gubernator style: its lease
	 * cannot pay for the request, nothing of it is on its way or owed, and the shared bucket
	 * as the last grant showed it, with what it refilled since, holds the credit and the
	 * request. A key whose last grant came short (its bucket ran dry: a hot key, whose
	 * replicas share what refills) is not.
	 */
	boolean mayCreditAgain(long allowanceUnits, long units, long now) {
		if (!this.everLeased || this.lastLeaseFailed || this.lastGrantShort || this.credit != 0
				|| this.sharedCall != null || allowanceUnits < units || !isQuietOver(now)) {
			return false;
		}
		long missing = allowanceUnits + units - this.sharedRemainingUnits;
		return missing <= 0 || now - this.sharedSeenAt >= this.limits.nanosToRefill(missing);
	}

	/** The credit admitted so far, which the call that covers it charges. */
	long usedCredit() {
		return this.credit - Math.max(0, Math.min(this.units, this.credit));
	}

	void startOnCredit(long allowanceUnits) {
		this.creditGiven = true;
		this.credit = allowanceUnits;
		this.units += allowanceUnits;
	}

	/** Takes back credit none of which was used: nothing would charge it. */
	void withdrawCredit() {
		this.units -= this.credit;
		this.credit = 0;
		this.creditGiven = false;
	}

	/** Whether a request must wait for the shared store: the first, or the first after a failure. */
	boolean mustWaitForShared() {
		return !this.everLeased || this.lastLeaseFailed;
	}

	void take(long units) {
		this.units -= units;
	}

	void add(long units) {
		this.units = Math.min(this.limits.capacityUnits(), this.units + units);
	}

	/**
	 * Adds a grant, which pays first for the credit the call was made to cover.
	 * @param grant what the shared store gave
	 * @param asked what the call asked for
	 * @param now when it arrived
	 * @param roundTripNanos how long the call took
	 * @param creditCovered the credit the call asked for beside the lease
	 * @return the units admitted on credit that the grant could not pay for, owed to the
	 * shared bucket; 0 mostly
	 */
	long granted(LeasableBucketStore.Grant grant, long asked, long now, long roundTripNanos, long creditCovered) {
		// The call asked for the credit it carried; what the credit still owes is at most that.
		long covered = Math.min(creditCovered, this.credit);
		this.units += grant.units() - covered;
		this.credit -= covered;
		this.sharedRemainingUnits = grant.remainingUnits();
		this.sharedSeenAt = now;
		this.lastGrantShort = grant.units() < asked;
		this.roundTripNanos = roundTripNanos;
		this.everLeased = true;
		this.lastLeaseFailed = false;
		if (this.units >= 0) {
			return 0;
		}
		long owed = -this.units;
		this.units = 0;
		return owed;
	}

	void failed() {
		this.lastLeaseFailed = true;
	}

	void quietUntil(long now, long quietNanos) {
		this.quiet = quietNanos > 0;
		this.quietUntil = now + quietNanos;
	}

	boolean isQuietOver(long now) {
		return !this.quiet || now - this.quietUntil >= 0;
	}

	/** Takes the units out for the shared bucket: the lease is not used again. */
	LeasedBucketStore.Returned retire() {
		lock();
		try {
			this.retired = true;
			this.generation++;
			return takeAll();
		}
		finally {
			unlock();
		}
	}

	/** A policy change: the old shape's units go back, the lease starts afresh. */
	LeasedBucketStore.Returned reshape(BucketLimits limits) {
		LeasedBucketStore.Returned returned = takeAll();
		this.generation++;
		this.limits = limits;
		this.sharedRemainingUnits = 0;
		this.everLeased = false;
		return returned;
	}

	/**
	 * Takes out what the shared bucket is owed back: the units held, less the credit it was
	 * never charged for (negative when more was admitted on credit than is left).
	 */
	private LeasedBucketStore.Returned takeAll() {
		LeasedBucketStore.Returned returned = new LeasedBucketStore.Returned(this.limits, this.units - this.credit);
		this.units = 0;
		this.credit = 0;
		return returned;
	}

	void demand(long units, long now) {
		if (!this.demandSeen) {
			this.demandSeen = true;
			this.windowStart = now;
		}
		long elapsed = now - this.windowStart;
		if (elapsed >= DEMAND_WINDOW_NANOS) {
			double rate = this.windowUnits * 1e9 / elapsed;
			this.smoothedDemand = (this.smoothedDemand == 0) ? rate : 0.5 * this.smoothedDemand + 0.5 * rate;
			this.windowStart = now;
			this.windowUnits = 0;
		}
		this.windowUnits += units;
	}

	/** The key's demand in units per second over the windows that ended; 0 before the first. */
	double settledDemandPerSecond() {
		return this.smoothedDemand;
	}

	/** The key's recent demand in units per second; the window in progress counts when it runs ahead. */
	double demandPerSecond(long now) {
		long elapsed = Math.max(now - this.windowStart, DEMAND_WINDOW_NANOS / 10);
		return Math.max(this.smoothedDemand, this.windowUnits * 1e9 / elapsed);
	}

}
