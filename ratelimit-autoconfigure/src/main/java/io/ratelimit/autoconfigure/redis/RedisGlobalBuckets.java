package io.ratelimit.autoconfigure.redis;

/**
 * The Redis store and the failover in front of it, as one bean that is deliberately not a
 * {@code BucketStore}: a second {@code BucketStore} bean would make the local store's
 * {@code @ConditionalOnMissingBean} back off. Closing it closes the Redis connection.
 *
 * @param redis the store in Redis
 * @param failover the store global policies use
 */
record RedisGlobalBuckets(RedisBucketStore redis, FailoverBucketStore failover) implements AutoCloseable {

	@Override
	public void close() {
		this.redis.close();
	}

}
