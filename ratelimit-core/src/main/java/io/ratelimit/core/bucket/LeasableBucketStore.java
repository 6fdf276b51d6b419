package io.ratelimit.core.bucket;

/**
 * A shared {@link BucketStore} that can hand a share of a bucket's tokens to one replica and
 * take back what it did not use: what {@link LeasedBucketStore} decides from.
 */
public interface LeasableBucketStore extends BucketStore {

	/**
	 * Takes as many units as the bucket holds, up to a maximum; never waits for tokens.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param maximumUnits the most units to take, positive
	 * @return the units taken (possibly none) and what the bucket holds afterwards
	 */
	Grant lease(BucketKey key, BucketLimits limits, long maximumUnits);

	/**
	 * Returns units taken by {@link #lease} and not used; a full bucket keeps no more than
	 * its capacity.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to give back, positive
	 */
	void giveBack(BucketKey key, BucketLimits limits, long units);

	/**
	 * Charges units whatever the bucket holds, leaving it in debt if it holds too few (its
	 * refill pays the debt off before it admits again): for units a replica admitted before
	 * the bucket was asked.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to charge, positive
	 */
	void charge(BucketKey key, BucketLimits limits, long units);

	/**
	 * The outcome of {@link #lease}.
	 *
	 * @param units the units taken
	 * @param remainingUnits the units left in the shared bucket
	 */
	record Grant(long units, long remainingUnits) {
	}

}
