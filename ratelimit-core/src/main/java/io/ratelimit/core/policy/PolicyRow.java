package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One row of the {@code rate_limit_policy} table exactly as stored, before validation.
 * Every column may be wrong; {@link PolicySnapshot} decides which rows become policies.
 * A row is for one tenant ({@code project_id}), for one plan, or for everyone.
 * <p>
 * A row states its rate either as {@code rps_limit} (with the configured burst factor, as
 * every row did before layered limits) or as {@code limit_count} per {@code limit_window}
 * with an optional {@code burst}, never both. A row without a {@code limit_name} is its
 * endpoint's own limit, the one every request has; a named row is one more layer.
 *
 * @param id the row's identifier, used only to name the row in reports
 * @param endpoint the endpoint template, {@code default} or {@code UNKNOWN}
 * @param tenant the tenant ({@code project_id}), {@code null} for a global policy
 * @param rpsLimit requests per second; fractions allowed, e.g. {@code 0.083333} for 5 per
 * minute; {@code null} when the row counts per window
 * @param mode {@code ENFORCE}, {@code SHADOW} or {@code OFF}; {@code null} means enforce
 * @param scope {@code LOCAL}, {@code GLOBAL} or {@code GLOBAL_BATCHED}; {@code null} means
 * local
 * @param limitName the name of a layered limit, also its name in the response fields;
 * {@code null} for the endpoint's own limit
 * @param appliesTo {@code ENDPOINT}, {@code GROUP} or {@code API}; {@code null} means endpoint
 * @param group the group of endpoints a {@code GROUP} limit counts
 * @param limitCount the points or requests allowed per window
 * @param limitWindow the window, an ISO-8601 duration such as {@code PT1H}
 * @param burst the most a full bucket holds; {@code null} means the count
 * @param counts {@code POINTS} (the endpoint's weight) or {@code REQUESTS}; {@code null}
 * means points
 * @param plan the plan the row is for; {@code null} unless the row targets a plan. A row
 * targets a tenant, a plan, or everyone: never both a tenant and a plan
 */
public record PolicyRow(String id, @Nullable String endpoint, @Nullable String tenant, @Nullable BigDecimal rpsLimit,
		@Nullable String mode, @Nullable String scope, @Nullable String limitName, @Nullable String appliesTo,
		@Nullable String group, @Nullable Long limitCount, @Nullable String limitWindow, @Nullable Long burst,
		@Nullable String counts, @Nullable String plan) {

	public PolicyRow {
		Objects.requireNonNull(id, "id must not be null");
	}

	/**
	 * Creates a row for a tenant or everyone, as every row was before plans.
	 * @param id the row's identifier
	 * @param endpoint the endpoint template, {@code default} or {@code UNKNOWN}
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param rpsLimit requests per second, {@code null} when the row counts per window
	 * @param mode the mode, {@code null} means enforce
	 * @param scope the scope, {@code null} means local
	 * @param limitName the layered limit's name, {@code null} for the endpoint's own limit
	 * @param appliesTo {@code ENDPOINT}, {@code GROUP} or {@code API}
	 * @param group the group of a {@code GROUP} limit
	 * @param limitCount the points or requests allowed per window
	 * @param limitWindow the window, an ISO-8601 duration
	 * @param burst the most a full bucket holds
	 * @param counts {@code POINTS} or {@code REQUESTS}
	 */
	public PolicyRow(String id, @Nullable String endpoint, @Nullable String tenant, @Nullable BigDecimal rpsLimit,
			@Nullable String mode, @Nullable String scope, @Nullable String limitName, @Nullable String appliesTo,
			@Nullable String group, @Nullable Long limitCount, @Nullable String limitWindow, @Nullable Long burst,
			@Nullable String counts) {
		this(id, endpoint, tenant, rpsLimit, mode, scope, limitName, appliesTo, group, limitCount, limitWindow, burst,
				counts, null);
	}

	/**
	 * Creates a row of an endpoint's own limit in requests per second.
	 * @param id the row's identifier
	 * @param endpoint the endpoint template
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param rpsLimit requests per second
	 * @param mode the mode, {@code null} means enforce
	 * @param scope the scope, {@code null} means local
	 */
	public PolicyRow(String id, @Nullable String endpoint, @Nullable String tenant, @Nullable BigDecimal rpsLimit,
			@Nullable String mode, @Nullable String scope) {
		this(id, endpoint, tenant, rpsLimit, mode, scope, null, null, null, null, null, null, null, null);
	}

	/**
	 * Creates a row of local scope.
	 * @param id the row's identifier
	 * @param endpoint the endpoint template
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param rpsLimit requests per second
	 * @param mode the mode, {@code null} means enforce
	 */
	public PolicyRow(String id, @Nullable String endpoint, @Nullable String tenant, @Nullable BigDecimal rpsLimit,
			@Nullable String mode) {
		this(id, endpoint, tenant, rpsLimit, mode, null);
	}

	/**
	 * Creates a row of a layered limit counted per window, enforced and local.
	 * @param id the row's identifier
	 * @param endpoint the endpoint template, {@code default} for every endpoint
	 * @param tenant the tenant, {@code null} for a global policy
	 * @param limitName the limit's name
	 * @param appliesTo {@code ENDPOINT}, {@code GROUP} or {@code API}
	 * @param group the group of a {@code GROUP} limit, else {@code null}
	 * @param limitCount the points or requests per window
	 * @param limitWindow the window, e.g. {@code PT1H}
	 * @param counts {@code POINTS} or {@code REQUESTS}
	 * @return the row
	 */
	public static PolicyRow layered(String id, String endpoint, @Nullable String tenant, String limitName,
			String appliesTo, @Nullable String group, long limitCount, String limitWindow, String counts) {
		return new PolicyRow(id, endpoint, tenant, null, null, null, limitName, appliesTo, group, limitCount,
				limitWindow, null, counts, null);
	}

	/**
	 * Returns this row for a plan instead of a tenant or everyone.
	 * @param plan the plan the row is for
	 * @return a row like this one, for the plan
	 */
	public PolicyRow forPlan(@Nullable String plan) {
		return new PolicyRow(this.id, this.endpoint, this.tenant, this.rpsLimit, this.mode, this.scope, this.limitName,
				this.appliesTo, this.group, this.limitCount, this.limitWindow, this.burst, this.counts, plan);
	}

}
