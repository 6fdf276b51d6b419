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
 * {@code 1.5 × n × maximumShare × capacity} tokens that the others cannot use.
 *
 * @param horizon the demand a lease covers, at least 1 ms
 * @param maximumShare the largest lease as a share of the capacity, in (0, 1]
 * @param dynamic whether leases follow demand (otherwise they are always the largest)
 */
public record LeaseSizing(Duration horizon, double maximumShare, boolean dynamic) {

	public LeaseSizing {
		Objects.requireNonNull(horizon, "horizon must not be null");
		if (horizon.toMillis() < 1) {
			throw new IllegalArgumentException("The lease horizon must be at least 1 ms, but was " + horizon);
		}
		if (!(maximumShare > 0 && maximumShare <= 1)) {
			throw new IllegalArgumentException(
					"The largest lease must be a share of the capacity in (0, 1], but was " + maximumShare);
		}
	}

	/**
	 * Returns the default sizing: dynamic, covering 100 ms of demand, at most a tenth of the
	 * capacity.
	 * @return the default sizing
	 */
	public static LeaseSizing defaults() {
		return new LeaseSizing(Duration.ofMillis(100), 0.1, true);
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
