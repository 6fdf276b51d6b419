package io.ratelimit.core.policy;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The policies of one endpoint (and one limit name): the global one and those of single
 * tenants. The two links of the precedence chain that one endpoint contributes.
 */
final class Candidates {

	@Nullable Policy global;

	final Map<String, Policy> byTenant = new HashMap<>();

	void add(Policy policy) {
		if (policy.tenant() == null) {
			this.global = policy;
		}
		else {
			this.byTenant.put(policy.tenant(), policy);
		}
	}

	@Nullable Policy find(@Nullable String tenant) {
		Policy policy = (tenant != null) ? this.byTenant.get(tenant) : null;
		return (policy != null) ? policy : this.global;
	}

}
