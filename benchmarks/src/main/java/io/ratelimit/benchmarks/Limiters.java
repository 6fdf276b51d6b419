package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;

/**
 * The limiter of the whole-decision benchmarks: one policy row per template at
 * {@value #RPS} requests per second (burst factor 2), network identity only, the default
 * local bucket store. The rate is far above what one client of the request pools can
 * send, so every request is admitted; with the buckets made by {@link #warmBucket}, each
 * decision takes the full path, bucket update included.
 */
final class Limiters {

	static final int RPS = 10_000;

	/** Distinct clients in a request pool; each request of a pool has a bucket of its own. */
	static final int CLIENTS = 4096;

	private Limiters() {
	}

	static RateLimiter limiter(EndpointResolver endpoints, List<ApiTemplates.Route> routes) {
		return limiter(endpoints, routes, BigDecimal.valueOf(2));
	}

	/**
	 * The same limiter with another burst factor, which is also the seconds a drained bucket
	 * takes to refill and, with two more, how long an idle bucket is kept.
	 */
	static RateLimiter limiter(EndpointResolver endpoints, List<ApiTemplates.Route> routes, BigDecimal burstFactor) {
		return limiter(endpoints, routes, BigDecimal.valueOf(RPS), burstFactor);
	}

	/** The same limiter with another rate per client. */
	static RateLimiter limiter(EndpointResolver endpoints, List<ApiTemplates.Route> routes, BigDecimal rps,
			BigDecimal burstFactor) {
		List<PolicyRow> rows = new ArrayList<>();
		for (int i = 0; i < routes.size(); i++) {
			rows.add(new PolicyRow("row-" + i, routes.get(i).template().toString(), null, rps, "ENFORCE"));
		}
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows,
				PolicySettings.of(BigDecimal.valueOf(100), BigDecimal.TEN, burstFactor), TimeSource.system());
		Checks.require(policies.reload().failure() == null, "the policy rows to load");
		Checks.require(policies.current().policies().size() == routes.size(), "one policy per template");
		return RateLimiter.builder(endpoints, policies).build();
	}

	/**
	 * Sends a request again and again until one creates the bucket of its client, and
	 * returns the last decision. The store's doorkeeper answers a client without a bucket
	 * while its previous request has been refilled (here after 0.1 ms), as a full bucket
	 * would; the clients of a pool, whose turns come milliseconds apart, would never get a
	 * bucket otherwise. Requests in a row create it, usually the second; under a high rate
	 * (at 1,000,000 rps a request is refilled after 1 µs, so the next one must come within
	 * the doorkeeper's two ticks of 16 µs), only once the JIT has compiled the decision.
	 */
	static Decision warmBucket(RateLimiter limiter, RateLimitRequest request) {
		long entries = limiter.buckets().stats().entries();
		for (int attempt = 0; attempt < 100_000; attempt++) {
			Decision decision = limiter.evaluate(request);
			if (limiter.buckets().stats().entries() > entries) {
				return decision;
			}
		}
		throw new IllegalStateException("Benchmark fixture is wrong: expected a bucket for " + request.remoteAddress());
	}

	/** The address of client {@code i} of a pool. */
	static String client(int i) {
		return "198.18." + (i >>> 8) + "." + (i & 0xff);
	}

}
