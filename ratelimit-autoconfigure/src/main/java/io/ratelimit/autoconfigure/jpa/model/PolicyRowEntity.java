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

}
