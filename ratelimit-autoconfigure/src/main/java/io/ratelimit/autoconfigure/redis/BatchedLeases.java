package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import io.ratelimit.autoconfigure.RateLimitProperties;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.LeaseSizing;
import io.ratelimit.core.bucket.LeasedBucketStore;

/**
 * Builds the leases of {@code GLOBAL_BATCHED} policies from {@code ratelimit.redis.batch.*}.
 */
final class BatchedLeases {

	/**
	 * The background threads only start calls: the calls wait for Redis on the pipelined
	 * connection, not on a thread (when they waited on eight threads, 20 ms away, about 200
	 * calls a second went out and cold keys waited in the queue).
	 */
	private static final int BACKGROUND_THREADS = 2;

	private BatchedLeases() {
	}

	static LeasedBucketStore store(RateLimitProperties.Redis.Batch batch, RedisBucketStore redis,
			RateLimitProperties properties, ExecutorService background) {
		Duration horizon = InvalidRateLimitPropertyException.check("ratelimit.redis.batch.horizon",
				() -> RateLimitRedisAutoConfiguration.positive(batch.getHorizon()));
		double share = InvalidRateLimitPropertyException.check("ratelimit.redis.batch.maximum-share",
				() -> shareOfCapacity(batch.getMaximumShare()));
		Duration idleReturn = InvalidRateLimitPropertyException.check("ratelimit.redis.batch.idle-return",
				() -> RateLimitRedisAutoConfiguration.positive(batch.getIdleReturn()));
		LeaseSizing sizing = InvalidRateLimitPropertyException.check("ratelimit.redis.batch.cold-key-share",
				() -> new LeaseSizing(horizon, share, batch.getSizing() == RateLimitProperties.LeaseSizingMode.DYNAMIC,
						batch.getColdKeyShare()));
		redis.flushWindow(InvalidRateLimitPropertyException.check("ratelimit.redis.batch.flush-interval",
				() -> RateLimitRedisAutoConfiguration.positive(batch.getFlushInterval())));
		// A request waits for its key's calls no longer than for a call of its own.
		return new LeasedBucketStore(redis, sizing, batch.getBurst(), properties.getRedis().getTimeout(), idleReturn,
				properties.getBuckets().getMaximumEntries(), background, TimeSource.system());
	}

	static ExecutorService backgroundThreads() {
		AtomicInteger threads = new AtomicInteger();
		return Executors.newFixedThreadPool(BACKGROUND_THREADS, (task) -> {
			Thread thread = new Thread(task, "ratelimit-leases-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	private static double shareOfCapacity(double share) {
		if (!(share > 0 && share <= 1)) {
			throw new IllegalArgumentException("must be a share of the capacity in (0, 1], but was " + share);
		}
		return share;
	}

}
