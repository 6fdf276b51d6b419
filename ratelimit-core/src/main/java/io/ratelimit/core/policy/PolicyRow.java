package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One row of the {@code rate_limit_policy} table exactly as stored, before validation.
 * Every column may be wrong; {@link PolicySnapshot} decides which rows become policies.
 *
 * @param id the row's identifier, used only to name the row in reports
 * @param endpoint the endpoint template, {@code default} or {@code UNKNOWN}
 * @param tenant the tenant ({@code project_id}), {@code null} for a global policy
 * @param rpsLimit requests per second; fractions allowed, e.g. {@code 0.083333} for 5 per
 * minute
 * @param mode {@code ENFORCE}, {@code SHADOW} or {@code OFF}; {@code null} means enforce
 * @param scope {@code LOCAL} or {@code GLOBAL}; {@code null} means local
 */
public record PolicyRow(String id, @Nullable String endpoint, @Nullable String tenant, @Nullable BigDecimal rpsLimit,
		@Nullable String mode, @Nullable String scope) {

	public PolicyRow {
		Objects.requireNonNull(id, "id must not be null");
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

}
