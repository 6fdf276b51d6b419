package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import io.ratelimit.core.Quota;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * A validated limit: an endpoint (a template, {@code default} or {@code UNKNOWN}), for one
 * tenant or globally, at a rate in requests per second.
 * <p>
 * A value: two policies are equal when all their parts are. It also holds its own
 * {@code RateLimit-Policy} item and quoted name, built once here rather than for every
 * request that answers with them (they were two of the limiter's largest allocations per
 * admitted request, about 130 of 930 bytes; docs/benchmarks.md).
 */
public final class Policy {

	/** The origin of the policies that apply when the table has no row. */
	public static final String BUILT_IN = "built-in";

	private final EndpointTemplate endpoint;

	private final @Nullable String tenant;

	private final BigDecimal rps;

	private final PolicyMode mode;

	private final PolicyScope scope;

	private final BucketLimits limits;

	private final String origin;

	private final String quotedName;

	private final String policyItem;

	/**
	 * Creates a policy.
	 * @param endpoint the endpoint the policy is written for
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param rps the sustained rate in requests per second
	 * @param mode what happens to requests over the limit
	 * @param scope where the policy's buckets live
	 * @param limits the bucket shape: capacity {@code beta * rps}, refill {@code rps}
	 * @param origin where the policy comes from: {@code row <id>} or {@code built-in}
	 */
	public Policy(EndpointTemplate endpoint, @Nullable String tenant, BigDecimal rps, PolicyMode mode,
			PolicyScope scope, BucketLimits limits, String origin) {
		this.endpoint = Objects.requireNonNull(endpoint, "endpoint must not be null");
		this.tenant = tenant;
		this.rps = Objects.requireNonNull(rps, "rps must not be null");
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.scope = Objects.requireNonNull(scope, "scope must not be null");
		this.limits = Objects.requireNonNull(limits, "limits must not be null");
		this.origin = Objects.requireNonNull(origin, "origin must not be null");
		this.quotedName = Quota.quoted(name());
		this.policyItem = Quota.policyItem(this.quotedName, limits);
	}

	/**
	 * Returns the endpoint the policy is written for.
	 * @return the endpoint
	 */
	public EndpointTemplate endpoint() {
		return this.endpoint;
	}

	/**
	 * Returns the tenant of the policy.
	 * @return the tenant, {@code null} for a global policy
	 */
	public @Nullable String tenant() {
		return this.tenant;
	}

	/**
	 * Returns the sustained rate.
	 * @return requests per second
	 */
	public BigDecimal rps() {
		return this.rps;
	}

	/**
	 * Returns what happens to requests over the limit.
	 * @return the mode
	 */
	public PolicyMode mode() {
		return this.mode;
	}

	/**
	 * Returns where the policy's buckets live.
	 * @return the scope
	 */
	public PolicyScope scope() {
		return this.scope;
	}

	/**
	 * Returns the bucket shape.
	 * @return capacity {@code beta * rps}, refill {@code rps}
	 */
	public BucketLimits limits() {
		return this.limits;
	}

	/**
	 * Returns where the policy comes from.
	 * @return {@code row <id>} or {@code built-in}
	 */
	public String origin() {
		return this.origin;
	}

	/**
	 * Returns the name of the policy in the {@code RateLimit} fields: its endpoint.
	 * @return the policy name
	 */
	public String name() {
		return this.endpoint.toString();
	}

	/**
	 * Returns the name as the fields write it, an RFC 9651 sf-string.
	 * @return e.g. {@code "GET /api/items/*"} with the quotes
	 */
	public String quotedName() {
		return this.quotedName;
	}

	/**
	 * Returns the {@code RateLimit-Policy} item of a bucket of this policy with the policy's
	 * own limits.
	 * @return e.g. {@code "default";q=20;w=2}
	 */
	public String policyItem() {
		return this.policyItem;
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

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof Policy that && this.endpoint.equals(that.endpoint)
				&& Objects.equals(this.tenant, that.tenant) && this.rps.equals(that.rps) && this.mode == that.mode
				&& this.scope == that.scope && this.limits.equals(that.limits) && this.origin.equals(that.origin));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.endpoint, this.tenant, this.rps, this.mode, this.scope, this.limits, this.origin);
	}

	@Override
	public String toString() {
		return "Policy[endpoint=" + this.endpoint + ", tenant=" + this.tenant + ", rps=" + this.rps + ", mode="
				+ this.mode + ", scope=" + this.scope + ", limits=" + this.limits + ", origin=" + this.origin + "]";
	}

}
