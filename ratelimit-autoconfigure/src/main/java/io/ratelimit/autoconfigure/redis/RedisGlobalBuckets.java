package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import io.ratelimit.core.bucket.LeasedBucketStore;

/**
 * The Redis store and what stands in front of it, as one bean that is deliberately not a
 * {@code BucketStore}: a second {@code BucketStore} bean would make the local store's
 * {@code @ConditionalOnMissingBean} back off. Closing it gives the batched policies' leases
 * back, then closes the Redis connection.
 *
 * @param redis the store in Redis
 * @param failover the store {@code GLOBAL} policies use
 * @param leases the leases of {@code GLOBAL_BATCHED} policies, taken from {@code redis}
 * @param batchedFailover the store {@code GLOBAL_BATCHED} policies use: {@code leases}
 * behind its own failure mode
 * @param background the threads that take and return leases
 * @param shutdownTimeout the longest wait for the leases to go back at close
 */
record RedisGlobalBuckets(RedisBucketStore redis, FailoverBucketStore failover, LeasedBucketStore leases,
		FailoverBucketStore batchedFailover, ExecutorService background, Duration shutdownTimeout)
		implements AutoCloseable {

	@Override
	public void close() {
		this.leases.close(this.shutdownTimeout);
		this.background.shutdownNow();
		this.redis.close();
	}

}
