package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * A validated limit: an endpoint (a template, {@code default} or {@code UNKNOWN}), for one
 * tenant, for one plan or globally, at a rate in requests per second.
 * <p>
 * A policy without a {@linkplain #limitName() limit name} is its endpoint's own limit, the
 * one every request has. A named policy is a layered limit: one more bucket the request is
 * charged to, per endpoint, per {@linkplain LimitTarget group of endpoints} or across the
 * API, counting {@linkplain LimitUnit points or requests}.
 * <p>
 * A value: two policies are equal when all their parts are. It also holds its own
 * {@code RateLimit-Policy} item and quoted name, built once rather than for every request
 * that answers with them (they were two of the limiter's largest allocations per admitted
 * request, about 130 of 930 bytes; docs/benchmarks.md). Policies loaded together share
 * those, and everything else but their tenant, plan and row, with every policy that says
 * the same: a table of a million tenants' rows holds a few distinct terms (docs/scaling.md).
 */
public final class Policy {

	/** The origin of the policies that apply when the table has no row. */
	public static final String BUILT_IN = "built-in";

	private static final String ROW = "row ";

	private final PolicyTerms terms;

	private final @Nullable String tenant;

	private final @Nullable String plan;

	/** The row number when the origin is {@code row <number>}, else -1. */
	private final long row;

	/** The origin when it is not a row number; built on demand otherwise. */
	private final @Nullable String origin;

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
		this(endpoint, tenant, rps, mode, scope, limits, origin, null, LimitTarget.ENDPOINT, null, LimitUnit.POINTS);
	}

	/**
	 * Creates a policy that may be a layered limit.
	 * @param endpoint the endpoint the policy is written for, {@code default} for a group or
	 * API-wide limit
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param rps the sustained rate in requests per second
	 * @param mode what happens to requests over the limit
	 * @param scope where the policy's buckets live
	 * @param limits the bucket shape
	 * @param origin where the policy comes from: {@code row <id>} or {@code built-in}
	 * @param limitName the layered limit's name, {@code null} for the endpoint's own limit
	 * @param target which requests share a bucket
	 * @param group the group of a {@link LimitTarget#GROUP} limit, else {@code null}
	 * @param unit what a request costs
	 */
	public Policy(EndpointTemplate endpoint, @Nullable String tenant, BigDecimal rps, PolicyMode mode,
			PolicyScope scope, BucketLimits limits, String origin, @Nullable String limitName, LimitTarget target,
			@Nullable String group, LimitUnit unit) {
		this(endpoint, tenant, rps, mode, scope, limits, origin, limitName, target, group, unit, null);
	}

	/**
	 * Creates a policy that may be for a plan.
	 * @param endpoint the endpoint the policy is written for, {@code default} for a group or
	 * API-wide limit
	 * @param tenant the tenant, {@code null} for a plan's or a global policy
	 * @param rps the sustained rate in requests per second
	 * @param mode what happens to requests over the limit
	 * @param scope where the policy's buckets live
	 * @param limits the bucket shape
	 * @param origin where the policy comes from: {@code row <id>} or {@code built-in}
	 * @param limitName the layered limit's name, {@code null} for the endpoint's own limit
	 * @param target which requests share a bucket
	 * @param group the group of a {@link LimitTarget#GROUP} limit, else {@code null}
	 * @param unit what a request costs
	 * @param plan the plan, {@code null} for a tenant's or a global policy
	 */
	public Policy(EndpointTemplate endpoint, @Nullable String tenant, BigDecimal rps, PolicyMode mode,
			PolicyScope scope, BucketLimits limits, String origin, @Nullable String limitName, LimitTarget target,
			@Nullable String group, LimitUnit unit, @Nullable String plan) {
		this(new PolicyTerms(endpoint, rps, mode, scope, limits, limitName, target, group, unit), tenant, plan,
				origin);
	}

	/**
	 * Creates a policy of terms shared with other policies.
	 */
	Policy(PolicyTerms terms, @Nullable String tenant, @Nullable String plan, String origin) {
		if (tenant != null && plan != null) {
			throw new IllegalArgumentException("A policy is for a tenant or a plan, not both: " + tenant + ", " + plan);
		}
		this.terms = terms;
		this.tenant = tenant;
		this.plan = plan;
		Objects.requireNonNull(origin, "origin must not be null");
		// A million "row 123" strings would cost more than the rest of their policies.
		this.row = rowNumber(origin);
		this.origin = (this.row < 0) ? origin : null;
	}

	private static long rowNumber(String origin) {
		int digits = origin.length() - ROW.length();
		if (!origin.startsWith(ROW) || digits < 1 || digits > 18 || (origin.charAt(ROW.length()) == '0' && digits > 1)) {
			return -1;
		}
		for (int i = ROW.length(); i < origin.length(); i++) {
			if (origin.charAt(i) < '0' || origin.charAt(i) > '9') {
				return -1;
			}
		}
		return Long.parseLong(origin, ROW.length(), origin.length(), 10);
	}

	PolicyTerms terms() {
		return this.terms;
	}

	/**
	 * Returns the endpoint the policy is written for.
	 * @return the endpoint
	 */
	public EndpointTemplate endpoint() {
		return this.terms.endpoint;
	}

	/**
	 * Returns the tenant of the policy.
	 * @return the tenant, {@code null} for a global policy
	 */
	public @Nullable String tenant() {
		return this.tenant;
	}

	/**
	 * Returns the plan of the policy.
	 * @return the plan, {@code null} for a tenant's or a global policy
	 */
	public @Nullable String plan() {
		return this.plan;
	}

	/**
	 * Returns the sustained rate.
	 * @return requests per second
	 */
	public BigDecimal rps() {
		return this.terms.rps;
	}

	/**
	 * Returns what happens to requests over the limit.
	 * @return the mode
	 */
	public PolicyMode mode() {
		return this.terms.mode;
	}

	/**
	 * Returns where the policy's buckets live.
	 * @return the scope
	 */
	public PolicyScope scope() {
		return this.terms.scope;
	}

	/**
	 * Returns the bucket shape.
	 * @return capacity {@code beta * rps}, refill {@code rps}
	 */
	public BucketLimits limits() {
		return this.terms.limits;
	}

	/**
	 * Returns where the policy comes from.
	 * @return {@code row <id>} or {@code built-in}
	 */
	public String origin() {
		return (this.origin != null) ? this.origin : ROW + this.row;
	}

	/**
	 * Returns the name of the policy in the {@code RateLimit} fields: its limit name, or its
	 * endpoint for an endpoint's own limit.
	 * @return the policy name
	 */
	public String name() {
		return this.terms.name();
	}

	/**
	 * Returns the name of a layered limit.
	 * @return the limit name, {@code null} for an endpoint's own limit
	 */
	public @Nullable String limitName() {
		return this.terms.limitName;
	}

	/**
	 * Returns whether this is a layered limit rather than an endpoint's own.
	 * @return whether the policy has a limit name
	 */
	public boolean isLayered() {
		return this.terms.limitName != null;
	}

	/**
	 * Returns which requests share a bucket of this policy.
	 * @return the target
	 */
	public LimitTarget target() {
		return this.terms.target;
	}

	/**
	 * Returns the group of endpoints a group limit counts.
	 * @return the group name, {@code null} unless the target is {@link LimitTarget#GROUP}
	 */
	public @Nullable String group() {
		return this.terms.group;
	}

	/**
	 * Returns what a request costs this policy.
	 * @return points (the endpoint's weight) or requests
	 */
	public LimitUnit unit() {
		return this.terms.unit;
	}

	/**
	 * Returns whether this is a limit of requests in progress at once rather than a rate.
	 * @return whether the policy counts {@link LimitUnit#IN_FLIGHT}
	 */
	public boolean isInFlight() {
		return this.terms.unit == LimitUnit.IN_FLIGHT;
	}

	/**
	 * Returns the name as the fields write it, an RFC 9651 sf-string.
	 * @return e.g. {@code "GET /api/items/*"} with the quotes
	 */
	public String quotedName() {
		return this.terms.quotedName;
	}

	/**
	 * Returns the {@code RateLimit-Policy} item of a bucket of this policy with the policy's
	 * own limits.
	 * @return e.g. {@code "default";q=20;w=2}
	 */
	public String policyItem() {
		return this.terms.policyItem;
	}

	/**
	 * Returns whether the policy's buckets are shared by all replicas.
	 * @return whether the scope is global
	 */
	public boolean isGlobal() {
		return this.terms.scope == PolicyScope.GLOBAL || this.terms.scope == PolicyScope.GLOBAL_BATCHED;
	}

	/**
	 * Returns whether the policy's shared buckets are decided from leased tokens.
	 * @return whether the scope is {@link PolicyScope#GLOBAL_BATCHED}
	 */
	public boolean isBatched() {
		return this.terms.scope == PolicyScope.GLOBAL_BATCHED;
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
		return (this == other) || (other instanceof Policy that && this.terms.equals(that.terms)
				&& Objects.equals(this.tenant, that.tenant) && Objects.equals(this.plan, that.plan) && this.row == that.row
				&& Objects.equals(this.origin, that.origin));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.terms, this.tenant, this.plan, this.row, this.origin);
	}

	@Override
	public String toString() {
		return "Policy[endpoint=" + endpoint() + ", tenant=" + this.tenant
				+ ((this.plan != null) ? ", plan=" + this.plan : "") + ", rps=" + rps() + ", mode=" + mode()
				+ ", scope=" + scope() + ", limits=" + limits() + ", origin=" + origin()
				+ ((limitName() != null) ? ", limit=" + limitName() + ", target=" + target()
						+ ((group() != null) ? " " + group() : "") + ", counts=" + unit() : "")
				+ "]";
	}

}
