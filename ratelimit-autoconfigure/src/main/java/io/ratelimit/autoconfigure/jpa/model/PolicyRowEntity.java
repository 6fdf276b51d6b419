package io.ratelimit.autoconfigure.jpa.model;

import java.math.BigDecimal;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.jspecify.annotations.Nullable;

/**
 * A row of {@code rate_limit_policy}, read-only. Columns are read as stored; validation is
 * the policy snapshot's job, so a bad row is reported rather than failing the load.
 */
@Entity
@Table(name = "rate_limit_policy")
public class PolicyRowEntity {

	@Id
	private Long id;

	@Column(name = "endpoint")
	private @Nullable String endpoint;

	@Column(name = "project_id")
	private @Nullable String projectId;

	@Column(name = "rps_limit")
	private @Nullable BigDecimal rpsLimit;

	@Column(name = "mode")
	private @Nullable String mode;

	@Column(name = "scope")
	private @Nullable String scope;

	@Column(name = "limit_name")
	private @Nullable String limitName;

	@Column(name = "applies_to")
	private @Nullable String appliesTo;

	@Column(name = "endpoint_group")
	private @Nullable String endpointGroup;

	@Column(name = "limit_count")
	private @Nullable Long limitCount;

	@Column(name = "limit_window")
	private @Nullable String limitWindow;

	@Column(name = "burst")
	private @Nullable Long burst;

	@Column(name = "counts")
	private @Nullable String counts;

	@Column(name = "plan")
	private @Nullable String plan;

	protected PolicyRowEntity() {
	}

	public Long getId() {
		return this.id;
	}

	public @Nullable String getEndpoint() {
		return this.endpoint;
	}

	public @Nullable String getProjectId() {
		return this.projectId;
	}

	public @Nullable BigDecimal getRpsLimit() {
		return this.rpsLimit;
	}

	public @Nullable String getMode() {
		return this.mode;
	}

	public @Nullable String getScope() {
		return this.scope;
	}

	public @Nullable String getLimitName() {
		return this.limitName;
	}

	public @Nullable String getAppliesTo() {
		return this.appliesTo;
	}

	public @Nullable String getEndpointGroup() {
		return this.endpointGroup;
	}

	public @Nullable Long getLimitCount() {
		return this.limitCount;
	}

	public @Nullable String getLimitWindow() {
		return this.limitWindow;
	}

	public @Nullable Long getBurst() {
		return this.burst;
	}

	public @Nullable String getCounts() {
		return this.counts;
	}

	public @Nullable String getPlan() {
		return this.plan;
	}

}
