package io.ratelimit.autoconfigure.redis;

import java.util.Objects;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore.LeaseStats;
import org.jspecify.annotations.Nullable;

/**
 * Publishes the state of the global (Redis) buckets, read when the registry is scraped:
 * <ul>
 * <li>{@code ratelimit.redis.failures} (function counter): Redis calls that failed or timed
 * out, in requests;</li>
 * <li>{@code ratelimit.redis.fallbacks} (function counter): decisions of global policies
 * taken by {@code ratelimit.redis.failure-mode} instead of Redis;</li>
 * <li>{@code ratelimit.redis.state} (gauge): 0 while Redis is used, 1 while the limiter
 * leaves it alone after repeated failures;</li>
 * <li>{@code ratelimit.redis.leases} (gauge): keys of {@code GLOBAL_BATCHED} policies with a
 * lease on this replica, and {@code ratelimit.redis.leased.tokens} (gauge) the tokens they
 * hold;</li>
 * <li>{@code ratelimit.redis.lease.decisions} (function counter, {@code outcome=local} or
 * {@code waited}): batched decisions taken from a lease, or after waiting for Redis;</li>
 * <li>{@code ratelimit.redis.lease.refills} (function counter, {@code outcome=taken} or
 * {@code failed}): leases taken in the background;</li>
 * <li>{@code ratelimit.redis.lease.returned.tokens} (function counter): tokens given back
 * to Redis, by idle keys and at shutdown;</li>
 * <li>{@code ratelimit.redis.lease.dropped.returns} (function counter): leases never given
 * back, because the background queue of returns was full or the shutdown timeout passed
 * (their tokens come back to Redis by refill);</li>
 * <li>{@code ratelimit.redis.lease.pending.calls} (gauge): background calls of batched
 * policies queued or in flight;</li>
 * <li>{@code ratelimit.redis.pipeline.round.trips} (function counter): writes of the
 * pipelined connection that carried background calls' commands, and
 * {@code ratelimit.redis.pipeline.commands} (function counter) the commands they carried.</li>
 * </ul>
 */
public class RedisBucketStoreMetrics implements MeterBinder {

	private final FailoverBucketStore store;

	private final FailoverBucketStore batched;

	private final LeasedBucketStore leases;

	private final @Nullable RedisBucketStore redis;

	/**
	 * Creates a binder.
	 * @param store the store of global policies
	 * @param batched the store of batched global policies
	 * @param leases the leases behind {@code batched}
	 */
	public RedisBucketStoreMetrics(FailoverBucketStore store, FailoverBucketStore batched, LeasedBucketStore leases) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.batched = Objects.requireNonNull(batched, "batched must not be null");
		this.leases = Objects.requireNonNull(leases, "leases must not be null");
		this.redis = null;
	}

	RedisBucketStoreMetrics(FailoverBucketStore store, FailoverBucketStore batched, LeasedBucketStore leases,
			RedisBucketStore redis) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.batched = Objects.requireNonNull(batched, "batched must not be null");
		this.leases = Objects.requireNonNull(leases, "leases must not be null");
		this.redis = Objects.requireNonNull(redis, "redis must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("ratelimit.redis.failures", this, (metrics) -> metrics.store.failures()
				+ metrics.batched.failures())
			.description("Redis calls of the global buckets that failed or timed out")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.fallbacks", this, (metrics) -> metrics.store.fallbacks()
				+ metrics.batched.fallbacks())
			.description("Decisions of global policies taken by ratelimit.redis.failure-mode instead of Redis")
			.register(registry);
		Gauge.builder("ratelimit.redis.state", this,
				(metrics) -> (metrics.store.isCoolingDown() || metrics.batched.isCoolingDown()) ? 1 : 0)
			.description("0 while global buckets are in Redis, 1 while Redis is left alone after repeated failures")
			.register(registry);
		Gauge.builder("ratelimit.redis.leases", this, lease(LeaseStats::leases))
			.description("Keys of batched global policies with a lease on this replica")
			.register(registry);
		Gauge.builder("ratelimit.redis.leased.tokens", this, lease((stats) -> tokens(stats.leasedUnits())))
			.description("Tokens of batched global policies leased by this replica and not used yet")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.decisions", this, lease(LeaseStats::localDecisions))
			.tag("outcome", "local")
			.description("Decisions of batched global policies, from a lease or after waiting for Redis")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.decisions", this, lease(LeaseStats::sharedWaits))
			.tag("outcome", "waited")
			.description("Decisions of batched global policies, from a lease or after waiting for Redis")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.bursts", this, lease(LeaseStats::bursts))
			.description("Requests of batched global policies that their lease and credit could not pay for while "
					+ "the key's call to Redis was on its way: waited for it or refused, as ratelimit.redis.batch.burst "
					+ "says")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.refills", this, lease(LeaseStats::refills))
			.tag("outcome", "taken")
			.description("Leases of batched global policies taken in the background")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.refills", this, lease(LeaseStats::refillFailures))
			.tag("outcome", "failed")
			.description("Leases of batched global policies taken in the background")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.returned.tokens", this,
				lease((stats) -> tokens(stats.returnedUnits())))
			.description("Tokens of batched global policies given back to Redis, by idle keys and at shutdown")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.cold.starts", this, lease(LeaseStats::coldStarts))
			.description("Keys decided on credit before this replica's first lease of them arrived")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.owed.tokens", this,
				lease((stats) -> tokens(stats.owedUnits())))
			.description("Tokens admitted on credit that the shared bucket could not pay for, charged to it as debt")
			.register(registry);
		FunctionCounter.builder("ratelimit.redis.lease.dropped.returns", this, lease(LeaseStats::droppedReturns))
			.description("Leases of batched global policies never given back to Redis: queue full or shutdown timeout")
			.register(registry);
		Gauge.builder("ratelimit.redis.lease.pending.calls", this, lease(LeaseStats::pendingCalls))
			.description("Background Redis calls of batched global policies queued or in flight")
			.register(registry);
		RedisBucketStore redis = this.redis;
		if (redis != null) {
			FunctionCounter.builder("ratelimit.redis.pipeline.round.trips", redis,
					(store) -> store.pipelineStats().roundTrips())
				.description("Writes to Redis that carried the commands of batched policies' background calls")
				.register(registry);
			FunctionCounter.builder("ratelimit.redis.pipeline.commands", redis,
					(store) -> store.pipelineStats().commands())
				.description("Commands of batched policies' background calls sent to Redis")
				.register(registry);
		}
	}

	private static ToDoubleFunction<RedisBucketStoreMetrics> lease(ToDoubleFunction<LeaseStats> value) {
		return (metrics) -> value.applyAsDouble(metrics.leases.leaseStats());
	}

	private static double tokens(long units) {
		return units / (double) BucketLimits.UNITS_PER_TOKEN;
	}

}
