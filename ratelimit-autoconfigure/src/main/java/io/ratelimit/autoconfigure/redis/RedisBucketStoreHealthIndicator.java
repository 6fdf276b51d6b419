package io.ratelimit.autoconfigure.redis;

import java.util.Locale;
import java.util.Objects;

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
 * {@code lastFailure}. Alert on the {@code ratelimit.redis.state} metric.
 */
public class RedisBucketStoreHealthIndicator implements HealthIndicator {

	private final FailoverBucketStore store;

	/**
	 * Creates an indicator.
	 * @param store the global bucket store
	 */
	public RedisBucketStoreHealthIndicator(FailoverBucketStore store) {
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up()
			.withDetail("state", this.store.isCoolingDown() ? "cooling-down" : "connected")
			.withDetail("failureMode", this.store.mode().name().toLowerCase(Locale.ROOT))
			.withDetail("failures", this.store.failures())
			.withDetail("fallbacks", this.store.fallbacks());
		String failure = this.store.lastFailure();
		if (failure != null) {
			health.withDetail("degraded", true).withDetail("lastFailure", failure);
		}
		return health.build();
	}

}
