package io.ratelimit.core.bucket;

/**
 * Holds token buckets by key. Implementations must be thread-safe, must never admit more
 * than the bucket allows however many threads consume at once, and must bound their state
 * so that invented keys cannot grow memory without limit.
 */
public interface BucketStore {

	/**
	 * Takes tokens from the bucket of a key, creating a full bucket on first use. If the
	 * limits differ from those the bucket was created with (the policy changed), the bucket
	 * adopts them and keeps its tokens, capped at the new capacity.
	 * @param key the bucket key
	 * @param limits the bucket shape
	 * @param tokens the tokens to take, at least 1
	 * @return the outcome
	 */
	Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens);

	/**
	 * Gives back tokens taken by {@link #tryConsume}, when a request that needed several
	 * buckets was refused by another one. The bucket never exceeds its capacity.
	 * @param key the bucket key
	 * @param limits the bucket shape
	 * @param tokens the tokens to give back
	 */
	void refund(BucketKey key, BucketLimits limits, long tokens);

	/**
	 * Returns the current size and evictions.
	 * @return the stats
	 */
	BucketStoreStats stats();

}
