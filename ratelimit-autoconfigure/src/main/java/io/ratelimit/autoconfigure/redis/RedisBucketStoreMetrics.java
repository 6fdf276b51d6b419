package io.ratelimit.autoconfigure.redis;

import java.util.Objects;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Publishes the state of the global (Redis) buckets, read when the registry is scraped:
 * <ul>
 * <li>{@code ratelimit.redis.failures} (function counter): Redis calls that failed or timed
 * out;</li>
 * <li>{@code ratelimit.redis.fallbacks} (function counter): decisions of global policies
 * taken by {@code ratelimit.redis.failure-mode} instead of Redis;</li>
 * <li>{@code ratelimit.redis.state} (gauge): 0 while Redis is used, 1 while the limiter
 * leaves it alone after repeated failures.</li>
 * </ul>
 */
public class RedisBucketStoreMetrics implements MeterBinder {

	private final FailoverBucketStore store;

	/**
	 * Creates a binder.
	 * @param store the global bucket store
	 */
	public RedisBucketStoreMetrics(FailoverBucketStore store) {
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("ratelimit.redis.failures", this.store, FailoverBucketStore::failures)
			.description("Redis calls of the global buckets that failed or timed out")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.fallbacks", this.store, FailoverBucketStore::fallbacks)
			.description("Decisions of global policies taken by ratelimit.redis.failure-mode instead of Redis")
			.register(registry);
		Gauge.builder("ratelimit.redis.state", this.store, (store) -> store.isCoolingDown() ? 1 : 0)
			.description("0 while global buckets are in Redis, 1 while Redis is left alone after repeated failures")
			.register(registry);
	}

}
