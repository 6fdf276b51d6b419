package io.ratelimit.core.bucket;

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

	private boolean everLeased;

	private boolean lastLeaseFailed;

	private boolean refilling;

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
		return this.refilling;
	}

	void refilling(boolean refilling) {
		this.refilling = refilling;
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

	void granted(LeasableBucketStore.Grant grant, long roundTripNanos) {
		this.units += grant.units();
		this.sharedRemainingUnits = grant.remainingUnits();
		this.roundTripNanos = roundTripNanos;
		this.everLeased = true;
		this.lastLeaseFailed = false;
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
			LeasedBucketStore.Returned returned = new LeasedBucketStore.Returned(this.limits, this.units);
			this.units = 0;
			return returned;
		}
		finally {
			unlock();
		}
	}

	/** A policy change: the old shape's units go back, the lease starts afresh. */
	LeasedBucketStore.Returned reshape(BucketLimits limits) {
		LeasedBucketStore.Returned returned = new LeasedBucketStore.Returned(this.limits, this.units);
		this.limits = limits;
		this.units = 0;
		this.sharedRemainingUnits = 0;
		this.everLeased = false;
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

	/** The key's recent demand in units per second; the window in progress counts when it runs ahead. */
	double demandPerSecond(long now) {
		long elapsed = Math.max(now - this.windowStart, DEMAND_WINDOW_NANOS / 10);
		return Math.max(this.smoothedDemand, this.windowUnits * 1e9 / elapsed);
	}

}
