package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * A validated limit: an endpoint (a template, {@code default} or {@code UNKNOWN}), for one
 * tenant or globally, at a rate in requests per second.
 *
 * @param endpoint the endpoint the policy is written for
 * @param tenant the tenant, {@code null} for a global policy
 * @param rps the sustained rate in requests per second
 * @param mode what happens to requests over the limit
 * @param scope where the policy's buckets live
 * @param limits the bucket shape: capacity {@code beta * rps}, refill {@code rps}
 * @param origin where the policy comes from: {@code row <id>} or {@code built-in}
 */
public record Policy(EndpointTemplate endpoint, @Nullable String tenant, BigDecimal rps, PolicyMode mode,
		PolicyScope scope, BucketLimits limits, String origin) {

	/** The origin of the policies that apply when the table has no row. */
	public static final String BUILT_IN = "built-in";

	public Policy {
		Objects.requireNonNull(endpoint, "endpoint must not be null");
		Objects.requireNonNull(rps, "rps must not be null");
		Objects.requireNonNull(mode, "mode must not be null");
		Objects.requireNonNull(scope, "scope must not be null");
		Objects.requireNonNull(limits, "limits must not be null");
		Objects.requireNonNull(origin, "origin must not be null");
	}

	/**
	 * Returns the name of the policy in the {@code RateLimit} fields: its endpoint.
	 * @return the policy name
	 */
	public String name() {
		return this.endpoint.toString();
	}

	/**
	 * Returns whether the policy's buckets are shared by all replicas.
	 * @return whether the scope is global
	 */
	public boolean isGlobal() {
		return this.scope == PolicyScope.GLOBAL || this.scope == PolicyScope.GLOBAL_BATCHED;
	}

	/**
	 * Returns whether the policy's shared buckets are decided from leased tokens.
	 * @return whether the scope is {@link PolicyScope#GLOBAL_BATCHED}
	 */
	public boolean isBatched() {
		return this.scope == PolicyScope.GLOBAL_BATCHED;
	}

	/**
	 * Returns whether the policy comes from configuration rather than a table row.
	 * @return whether the policy is built in
	 */
	public boolean isBuiltIn() {
		return BUILT_IN.equals(this.origin);
	}

}
