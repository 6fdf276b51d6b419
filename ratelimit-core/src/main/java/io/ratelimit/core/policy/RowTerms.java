package io.ratelimit.core.policy;

import java.math.BigDecimal;

import org.jspecify.annotations.Nullable;

/**
 * A policy row's columns but for its id, tenant and plan: what the many rows of a customer
 * base's tenants mostly have in common, validated once for all of them.
 */
record RowTerms(@Nullable String endpoint, @Nullable BigDecimal rpsLimit, @Nullable String mode,
		@Nullable String scope, @Nullable String limitName, @Nullable String appliesTo, @Nullable String group,
		@Nullable Long limitCount, @Nullable String limitWindow, @Nullable Long burst, @Nullable String counts) {

	static RowTerms of(PolicyRow row) {
		return new RowTerms(row.endpoint(), row.rpsLimit(), row.mode(), row.scope(), row.limitName(),
				row.appliesTo(), row.group(), row.limitCount(), row.limitWindow(), row.burst(), row.counts());
	}

	PolicyRow toRow(String id, @Nullable String tenant, @Nullable String plan) {
		return new PolicyRow(id, this.endpoint, tenant, this.rpsLimit, this.mode, this.scope, this.limitName,
				this.appliesTo, this.group, this.limitCount, this.limitWindow, this.burst, this.counts, plan);
	}

}
