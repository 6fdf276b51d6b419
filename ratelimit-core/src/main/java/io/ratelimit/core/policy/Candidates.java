package io.ratelimit.core.policy;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The policies of one endpoint (and one limit name): the global one and those of single
 * tenants and plans. The three links of the precedence chain that one endpoint
 * contributes: the tenant's row, else its plan's row, else the global row.
 */
final class Candidates {

	@Nullable Policy global;

	final Map<String, Policy> byTenant = new HashMap<>();

	final Map<String, Policy> byPlan = new HashMap<>();

	void add(Policy policy) {
		if (policy.tenant() != null) {
			this.byTenant.put(policy.tenant(), policy);
		}
		else if (policy.plan() != null) {
			this.byPlan.put(policy.plan(), policy);
		}
		else {
			this.global = policy;
		}
	}

	@Nullable Policy find(@Nullable String tenant, @Nullable String plan) {
		Policy policy = (tenant != null) ? this.byTenant.get(tenant) : null;
		if (policy == null && plan != null) {
			policy = this.byPlan.get(plan);
		}
		return (policy != null) ? policy : this.global;
	}

}
