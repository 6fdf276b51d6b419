package io.ratelimit.autoconfigure.redis;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.LeasedBucketStore;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health contributor {@code ratelimitRedis}: whether global buckets are in Redis. Like
 * the {@code ratelimit} contributor it is never {@code DOWN}: while Redis cannot be used,
 * requests are decided by {@code ratelimit.redis.failure-mode} and the application serves,
 * and taking every replica out of the load balancer at once because they share one Redis
 * would turn a degraded limiter into an outage. The details say what is going on:
 * {@code state} ({@code connected} or {@code cooling-down}), {@code failureMode},
 * {@code failures}, {@code fallbacks}, and while Redis fails {@code degraded: true} and
 * {@code lastFailure}; {@code batched} says the same of {@code GLOBAL_BATCHED} policies,
 * with this replica's {@code leases}, {@code leasedTokens}, {@code refillFailures} and
 * {@code droppedReturns} (leases never given back: queue full or shutdown timeout). Alert
 * on the {@code ratelimit.redis.state} metric.
 */
public class RedisBucketStoreHealthIndicator implements HealthIndicator {

	private final FailoverBucketStore store;

	private final FailoverBucketStore batched;

	private final LeasedBucketStore leases;

	/**
	 * Creates an indicator.
	 * @param store the store of global policies
	 * @param batched the store of batched global policies
	 * @param leases the leases behind {@code batched}
	 */
	public RedisBucketStoreHealthIndicator(FailoverBucketStore store, FailoverBucketStore batched,
			LeasedBucketStore leases) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.batched = Objects.requireNonNull(batched, "batched must not be null");
		this.leases = Objects.requireNonNull(leases, "leases must not be null");
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up();
		details(this.store).forEach(health::withDetail);
		Map<String, Object> batched = details(this.batched);
		LeasedBucketStore.LeaseStats stats = this.leases.leaseStats();
		batched.put("leases", stats.leases());
		batched.put("leasedTokens", stats.leasedUnits() / BucketLimits.UNITS_PER_TOKEN);
		batched.put("refillFailures", stats.refillFailures());
		batched.put("droppedReturns", stats.droppedReturns());
		batched.put("coldStarts", stats.coldStarts());
		batched.put("pendingCalls", stats.pendingCalls());
		return health.withDetail("batched", batched).build();
	}

	private static Map<String, Object> details(FailoverBucketStore store) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("state", store.isCoolingDown() ? "cooling-down" : "connected");
		details.put("failureMode", store.mode().name().toLowerCase(Locale.ROOT));
		details.put("failures", store.failures());
		details.put("fallbacks", store.fallbacks());
		String failure = store.lastFailure();
		if (failure != null) {
			details.put("degraded", true);
			details.put("lastFailure", failure);
		}
		return details;
	}

}
