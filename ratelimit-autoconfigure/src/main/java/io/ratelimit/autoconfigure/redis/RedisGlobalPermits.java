package io.ratelimit.autoconfigure.redis;

/**
 * The Redis permit store and the failure mode in front of it, as one bean that is
 * deliberately not a {@code PermitStore}: a {@code PermitStore} bean would make the local
 * store's {@code @ConditionalOnMissingBean} back off, and {@code LOCAL} in-flight limits
 * would then take their permits in Redis, without a failure mode. Closing it stops the
 * renewals and closes the Redis connection.
 *
 * @param redis the store in Redis
 * @param failover the store {@code GLOBAL} in-flight limits use
 */
record RedisGlobalPermits(RedisPermitStore redis, FailoverPermitStore failover) implements AutoCloseable {

	@Override
	public void close() {
		this.redis.close();
	}

}
