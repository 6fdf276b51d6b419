package io.ratelimit.core.bucket;

import java.time.Duration;
import java.util.Objects;

/**
 * How many tokens a replica leases at a time. Dynamic by default: what the key's recent
 * demand on this replica uses in {@code horizon} (or in two lease round trips, when they
 * take longer), at most {@code maximumShare} of the bucket's capacity. Static: always
 * {@code maximumShare} of the capacity.
 *
 * <p>The shares bound the accuracy (see {@link LeasedBucketStore}): n replicas hold at most
 * {@code 1.5 × n × maximumShare × capacity} tokens that the others cannot use (or
 * {@code 1.5 × n} times the heaviest request's cost, if more: a lease holds at least the
 * request it is taken for), and admit at
 * most {@code n × coldKeyShare × capacity} of a key before their first leases of it arrive
 * (or {@code n} times the request's cost, if more and the bucket refills it within
 * {@link #WHOLE_REQUEST_CREDIT_REFILL}: credit then covers the request).
 *
 * @param horizon the demand a lease covers, at least 1 ms
 * @param maximumShare the largest lease as a share of the capacity, in (0, 1]
 * @param dynamic whether leases follow demand (otherwise they are always the largest)
 * @param coldKeyShare what a replica may admit of a key it holds no lease of while its
 * first lease is on its way, as a share of the capacity in [0, maximumShare]; 0 makes
 * such a key's first request wait for the lease
 */
public record LeaseSizing(Duration horizon, double maximumShare, boolean dynamic, double coldKeyShare) {

	/**
	 * The longest a bucket may take to refill a request for its keys' credit to be a whole
	 * request when its share of the capacity is less.
	 */
	public static final Duration WHOLE_REQUEST_CREDIT_REFILL = Duration.ofSeconds(1);

	public LeaseSizing {
		Objects.requireNonNull(horizon, "horizon must not be null");
		if (horizon.toMillis() < 1) {
			throw new IllegalArgumentException("The lease horizon must be at least 1 ms, but was " + horizon);
		}
		if (!(maximumShare > 0 && maximumShare <= 1)) {
			throw new IllegalArgumentException(
					"The largest lease must be a share of the capacity in (0, 1], but was " + maximumShare);
		}
		if (!(coldKeyShare >= 0 && coldKeyShare <= maximumShare)) {
			throw new IllegalArgumentException("The allowance of a cold key must be a share of the capacity in [0, "
					+ maximumShare + "] (the largest lease), but was " + coldKeyShare);
		}
	}

	/**
	 * Returns a sizing whose cold keys wait for their first lease.
	 * @param horizon the demand a lease covers
	 * @param maximumShare the largest lease as a share of the capacity
	 * @param dynamic whether leases follow demand
	 */
	public LeaseSizing(Duration horizon, double maximumShare, boolean dynamic) {
		this(horizon, maximumShare, dynamic, 0);
	}

	/**
	 * Returns the default sizing: dynamic, covering 100 ms of demand, at most a tenth of the
	 * capacity, and a tenth of it admitted of a cold key before its first lease arrives.
	 * @return the default sizing
	 */
	public static LeaseSizing defaults() {
		return new LeaseSizing(Duration.ofMillis(100), 0.1, true, 0.1);
	}

	/**
	 * Returns what a replica may admit of a key on credit: the cold-key share of the
	 * capacity, or the request if that is more and the bucket refills it within
	 * {@link #WHOLE_REQUEST_CREDIT_REFILL}, so that the keys of a small, fast bucket (a share
	 * of a capacity of 5 a second is half a token) are decided at once too. A small, slow
	 * bucket (a login limit of a few an hour) keeps its share: less than the request, so its
	 * cold keys wait for their lease, where credit of a whole request would let n replicas
	 * admit up to {@code 2 × n} requests beyond a limit of a few, for minutes.
	 * @param limits the bucket's shape
	 * @param units the request's cost
	 * @return the units, 0 when cold keys wait for their lease
	 */
	long coldKeyUnits(BucketLimits limits, long units) {
		long share = (long) (limits.capacityUnits() * this.coldKeyShare);
		return creditIsWholeRequest(limits, this.coldKeyShare, units) ? Math.min(limits.capacityUnits(), units) : share;
	}

	/**
	 * Returns whether a one-token request's credit on a bucket of this shape is the whole
	 * request, more than its share of the capacity: the bucket holds fewer than
	 * {@code 1 / coldKeyShare} tokens and refills one within
	 * {@link #WHOLE_REQUEST_CREDIT_REFILL} ({@code RATELIMIT-W018} names such rows).
	 * @param limits the bucket's shape
	 * @param coldKeyShare the share of the capacity a cold key gets on credit
	 * @return whether the credit is a whole request
	 */
	public static boolean creditIsWholeRequest(BucketLimits limits, double coldKeyShare) {
		return creditIsWholeRequest(limits, coldKeyShare, BucketLimits.UNITS_PER_TOKEN);
	}

	/**
	 * Returns whether a one-token request of a cold key on a bucket of this shape gets no
	 * credit and waits for the shared store: its share of the capacity is less than a
	 * request, and the bucket takes more than {@link #WHOLE_REQUEST_CREDIT_REFILL} to refill
	 * one ({@code RATELIMIT-W019} names such rows).
	 * @param limits the bucket's shape
	 * @param coldKeyShare the share of the capacity a cold key gets on credit
	 * @return whether the credit is none
	 */
	public static boolean coldKeysWait(BucketLimits limits, double coldKeyShare) {
		return limits.capacityUnits() * coldKeyShare < BucketLimits.UNITS_PER_TOKEN
				&& !creditIsWholeRequest(limits, coldKeyShare);
	}

	private static boolean creditIsWholeRequest(BucketLimits limits, double coldKeyShare, long units) {
		return coldKeyShare > 0 && limits.capacityUnits() * coldKeyShare < units
				&& limits.nanosToRefill(Math.min(units, limits.capacityUnits())) <= WHOLE_REQUEST_CREDIT_REFILL.toNanos();
	}

	/**
	 * Returns the units of a lease taken with a credit call: what the key's settled demand
	 * uses while the lease is held, none when that is less than a token (a key seen now and
	 * then would only give it back).
	 * @param limits the bucket's shape
	 * @param settledDemandUnitsPerSecond the key's demand on this replica over whole windows
	 * @param roundTripNanos how long the last lease took
	 * @return the units, 0 or at least a token's
	 */
	long creditBatchUnits(BucketLimits limits, double settledDemandUnitsPerSecond, long roundTripNanos) {
		double covered = Math.max(this.horizon.toNanos(), 2.0 * roundTripNanos) / 1e9;
		if (settledDemandUnitsPerSecond * covered < BucketLimits.UNITS_PER_TOKEN) {
			return 0;
		}
		return batchUnits(limits, settledDemandUnitsPerSecond, roundTripNanos);
	}

	/**
	 * Returns the units of the next lease.
	 * @param limits the bucket's shape
	 * @param demandUnitsPerSecond the key's recent demand on this replica
	 * @param roundTripNanos how long the last lease took
	 * @return the units, at least one token's and at most the largest lease
	 */
	long batchUnits(BucketLimits limits, double demandUnitsPerSecond, long roundTripNanos) {
		long largest = Math.max(BucketLimits.UNITS_PER_TOKEN, (long) (limits.capacityUnits() * this.maximumShare));
		if (!this.dynamic) {
			return largest;
		}
		double covered = Math.max(this.horizon.toNanos(), 2.0 * roundTripNanos) / 1e9;
		long wanted = (long) Math.ceil(demandUnitsPerSecond * covered);
		return Math.max(BucketLimits.UNITS_PER_TOKEN, Math.min(largest, wanted));
	}

}
