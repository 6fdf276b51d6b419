package io.ratelimit.core.policy;

import java.util.List;
import java.util.Map;

/**
 * Reads every policy row, e.g. from the {@code rate_limit_policy} table, and the plan of
 * each tenant that has one assigned, e.g. from the {@code rate_limit_tenant_plan} table.
 * Called on reload, never on the request path.
 */
@FunctionalInterface
public interface PolicySource {

	/**
	 * Reads all rows as stored, invalid ones included.
	 * @return the rows
	 * @throws Exception if the rows cannot be read; the last good snapshot stays in use
	 */
	List<PolicyRow> load() throws Exception;

	/**
	 * Reads the plan the operator assigned to each tenant. A source without such
	 * assignments has none: tenants then have the plan their credential carries, if any.
	 * @return the plan of each tenant named, by tenant ({@code project_id})
	 * @throws Exception if the assignments cannot be read; the last good snapshot stays in
	 * use
	 */
	default Map<String, String> loadTenantPlans() throws Exception {
		return Map.of();
	}

}
