package io.ratelimit.autoconfigure.jpa.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row of {@code rate_limit_tenant_plan}, read-only: the plan a tenant belongs to. Read
 * with the policy rows, into the same snapshot.
 */
@Entity
@Table(name = "rate_limit_tenant_plan")
public class TenantPlanEntity {

	@Id
	@Column(name = "project_id")
	private String projectId;

	@Column(name = "plan")
	private String plan;

	protected TenantPlanEntity() {
	}

	public String getProjectId() {
		return this.projectId;
	}

	public String getPlan() {
		return this.plan;
	}

}
