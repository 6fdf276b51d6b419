package io.ratelimit.autoconfigure.metrics;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.policy.ReloadablePolicies;

/**
 * Publishes the state of the bucket store and of the policies, read when the registry
 * is scraped, never on the request path:
 * <ul>
 * <li>{@code ratelimit.buckets.entries} (gauge) and {@code ratelimit.buckets.evictions}
 * (function counter);</li>
 * <li>{@code ratelimit.policy.reloads} (function counters), tagged {@code result} =
 * {@code success} or {@code failure};</li>
 * <li>{@code ratelimit.policy.snapshot.age} (time gauge): time since the policies in use
 * were read;</li>
 * <li>{@code ratelimit.policy.over-limit} (gauge): 1 while the policy table holds more rows
 * than {@code ratelimit.policy.maximum-policies}, so that every reload fails and no change
 * takes effect; 0 otherwise. Alert on it: it does not pass by itself.</li>
 * </ul>
 */
public class RateLimitMeterBinder implements MeterBinder {

	private final BucketStore buckets;

	private final ReloadablePolicies policies;

	private final TimeSource time;

	/**
	 * Creates a binder.
	 * @param buckets the bucket store the limiter uses
	 * @param policies the policies the limiter uses
	 * @param time the clock the snapshot age is measured with
	 */
	public RateLimitMeterBinder(BucketStore buckets, ReloadablePolicies policies, TimeSource time) {
		this.buckets = Objects.requireNonNull(buckets, "buckets must not be null");
		this.policies = Objects.requireNonNull(policies, "policies must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("ratelimit.buckets.entries", this.buckets, (store) -> store.stats().entries())
			.description("Token buckets held by the bucket store")
			.baseUnit("buckets")
			.register(registry);
		FunctionCounter.builder("ratelimit.buckets.evictions", this.buckets, (store) -> store.stats().evictions())
			.description("Token buckets dropped by the bucket store, for size or idleness")
			.baseUnit("buckets")
			.register(registry);
		// Each successful load increments the snapshot version, so the version counts them.
		FunctionCounter.builder("ratelimit.policy.reloads", this.policies, (p) -> p.current().version())
			.description("Policy reloads, by result")
			.tag("result", "success")
			.register(registry);
		FunctionCounter.builder("ratelimit.policy.reloads", this.policies, ReloadablePolicies::failedReloads)
			.description("Policy reloads, by result")
			.tag("result", "failure")
			.register(registry);
		Gauge.builder("ratelimit.policy.over-limit", this.policies, (policies) -> policies.overLimit() ? 1 : 0)
			.description("1 while the policy table holds more rows than ratelimit.policy.maximum-policies: "
					+ "reloads fail and no change to the table takes effect")
			.register(registry);
		TimeGauge
			.builder("ratelimit.policy.snapshot.age", this, TimeUnit.MILLISECONDS, RateLimitMeterBinder::ageMillis)
			.description("Time since the policies in use were read; grows while reloads fail")
			.register(registry);
	}

	private double ageMillis() {
		return Math.max(0, this.time.currentTimeMillis() - this.policies.current().loadedAt().toEpochMilli());
	}

}
