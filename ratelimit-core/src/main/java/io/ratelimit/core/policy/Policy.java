package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import io.ratelimit.core.Quota;
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
 * {@code RateLimit-Policy} item and quoted name, built once here rather than for every
 * request that answers with them (they were two of the limiter's largest allocations per
 * admitted request, about 130 of 930 bytes; docs/benchmarks.md).
 */
public final class Policy {

	/** The origin of the policies that apply when the table has no row. */
	public static final String BUILT_IN = "built-in";

	private final EndpointTemplate endpoint;

	private final @Nullable String tenant;

	private final @Nullable String plan;

	private final BigDecimal rps;

	private final PolicyMode mode;

	private final PolicyScope scope;

	private final BucketLimits limits;

	private final String origin;

	private final @Nullable String limitName;

	private final LimitTarget target;

	private final @Nullable String group;

	private final LimitUnit unit;

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
		if (tenant != null && plan != null) {
			throw new IllegalArgumentException("A policy is for a tenant or a plan, not both: " + tenant + ", " + plan);
		}
		this.plan = plan;
		this.limitName = limitName;
		this.target = Objects.requireNonNull(target, "target must not be null");
		this.group = group;
		this.unit = Objects.requireNonNull(unit, "unit must not be null");
		if (limitName == null && (target != LimitTarget.ENDPOINT || unit != LimitUnit.POINTS)) {
			throw new IllegalArgumentException("Only a named limit can apply to a group or the API or count requests");
		}
		if ((target == LimitTarget.GROUP) != (group != null)) {
			throw new IllegalArgumentException("A group names its group, and only a group does: " + target + ", " + group);
		}
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
	 * Returns the name of the policy in the {@code RateLimit} fields: its limit name, or its
	 * endpoint for an endpoint's own limit.
	 * @return the policy name
	 */
	public String name() {
		return (this.limitName != null) ? this.limitName : this.endpoint.toString();
	}

	/**
	 * Returns the name of a layered limit.
	 * @return the limit name, {@code null} for an endpoint's own limit
	 */
	public @Nullable String limitName() {
		return this.limitName;
	}

	/**
	 * Returns whether this is a layered limit rather than an endpoint's own.
	 * @return whether the policy has a limit name
	 */
	public boolean isLayered() {
		return this.limitName != null;
	}

	/**
	 * Returns which requests share a bucket of this policy.
	 * @return the target
	 */
	public LimitTarget target() {
		return this.target;
	}

	/**
	 * Returns the group of endpoints a group limit counts.
	 * @return the group name, {@code null} unless the target is {@link LimitTarget#GROUP}
	 */
	public @Nullable String group() {
		return this.group;
	}

	/**
	 * Returns what a request costs this policy.
	 * @return points (the endpoint's weight) or requests
	 */
	public LimitUnit unit() {
		return this.unit;
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
				&& Objects.equals(this.tenant, that.tenant) && Objects.equals(this.plan, that.plan) && this.rps.equals(that.rps) && this.mode == that.mode
				&& this.scope == that.scope && this.limits.equals(that.limits) && this.origin.equals(that.origin)
				&& Objects.equals(this.limitName, that.limitName) && this.target == that.target
				&& Objects.equals(this.group, that.group) && this.unit == that.unit);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.endpoint, this.tenant, this.plan, this.rps, this.mode, this.scope, this.limits, this.origin,
				this.limitName, this.target, this.group, this.unit);
	}

	@Override
	public String toString() {
		return "Policy[endpoint=" + this.endpoint + ", tenant=" + this.tenant
				+ ((this.plan != null) ? ", plan=" + this.plan : "") + ", rps=" + this.rps + ", mode="
				+ this.mode + ", scope=" + this.scope + ", limits=" + this.limits + ", origin=" + this.origin
				+ ((this.limitName != null) ? ", limit=" + this.limitName + ", target=" + this.target
						+ ((this.group != null) ? " " + this.group : "") + ", counts=" + this.unit : "")
				+ "]";
	}

}
