package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import io.ratelimit.core.Quota;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * What a policy says, apart from whom it is for and which row it comes from: the endpoint,
 * the rate and bucket, the mode and scope, and for a layered limit its name, target and
 * unit. A customer base's exceptions are mostly the same few terms for many tenants, so a
 * load shares one instance between every row that says the same, with its response-field
 * text built once for all of them.
 */
final class PolicyTerms {

	final EndpointTemplate endpoint;

	final BigDecimal rps;

	final PolicyMode mode;

	final PolicyScope scope;

	final BucketLimits limits;

	final @Nullable String limitName;

	final LimitTarget target;

	final @Nullable String group;

	final LimitUnit unit;

	final String quotedName;

	final String policyItem;

	PolicyTerms(EndpointTemplate endpoint, BigDecimal rps, PolicyMode mode, PolicyScope scope, BucketLimits limits,
			@Nullable String limitName, LimitTarget target, @Nullable String group, LimitUnit unit) {
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
		this.rps = Objects.requireNonNull(rps, "rps must not be null");
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.scope = Objects.requireNonNull(scope, "scope must not be null");
		this.limits = Objects.requireNonNull(limits, "limits must not be null");
		this.quotedName = Quota.quoted(name());
		this.policyItem = (unit == LimitUnit.IN_FLIGHT) ? Quota.inFlightPolicyItem(this.quotedName, limits.quota())
				: Quota.policyItem(this.quotedName, limits);
	}

	String name() {
		return (this.limitName != null) ? this.limitName : this.endpoint.toString();
	}

	@Override
	public boolean equals(@Nullable Object other) {
		// rps by equals, not by value: 10 and 10.000000 are shown as written.
		return (this == other) || (other instanceof PolicyTerms that && this.endpoint.equals(that.endpoint)
				&& this.rps.equals(that.rps) && this.mode == that.mode && this.scope == that.scope
				&& this.limits.equals(that.limits) && Objects.equals(this.limitName, that.limitName)
				&& this.target == that.target && Objects.equals(this.group, that.group) && this.unit == that.unit);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.endpoint, this.rps, this.mode, this.scope, this.limits, this.limitName, this.target,
				this.group, this.unit);
	}

}
