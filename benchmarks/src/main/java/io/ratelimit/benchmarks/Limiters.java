package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

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
 * send, so every request is admitted and each decision takes the full path, bucket update
 * included.
 */
final class Limiters {

	static final int RPS = 10_000;

	/** Distinct clients in a request pool; each request of a pool has a bucket of its own. */
	static final int CLIENTS = 4096;

	private Limiters() {
	}

	static RateLimiter limiter(EndpointResolver endpoints, List<ApiTemplates.Route> routes) {
		List<PolicyRow> rows = new ArrayList<>();
		for (int i = 0; i < routes.size(); i++) {
			rows.add(new PolicyRow("row-" + i, routes.get(i).template().toString(), null, BigDecimal.valueOf(RPS),
					"ENFORCE"));
		}
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows,
				PolicySettings.of(BigDecimal.valueOf(100), BigDecimal.TEN, BigDecimal.valueOf(2)), TimeSource.system());
		Checks.require(policies.reload().failure() == null, "the policy rows to load");
		Checks.require(policies.current().policies().size() == routes.size(), "one policy per template");
		return RateLimiter.builder(endpoints, policies).build();
	}

	/** The address of client {@code i} of a pool. */
	static String client(int i) {
		return "198.18." + (i >>> 8) + "." + (i & 0xff);
	}

}
