package io.ratelimit.autoconfigure.jpa;

import java.util.List;

import io.ratelimit.autoconfigure.jpa.model.TenantPlanEntity;

import org.springframework.data.repository.Repository;

/**
 * Reads {@code rate_limit_tenant_plan}.
 */
public interface TenantPlanRepository extends Repository<TenantPlanEntity, String> {

	/**
	 * Reads every tenant's plan as plain values: a table of many tenants must not become as
	 * many managed entities in the persistence context.
	 * @return the plan of each tenant in the table
	 */
	List<TenantPlan> findAllProjectedBy();

	/**
	 * The plan of one tenant.
	 */
	interface TenantPlan {

		String getProjectId();

		String getPlan();

	}

}
