package io.ratelimit.autoconfigure.jpa.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.jspecify.annotations.Nullable;

/**
 * A row of {@code rate_limit_api_key}, read-only: the keyed hash of a key, never the key.
 */
@Entity
@Table(name = "rate_limit_api_key")
public class ApiKeyEntity {

	@Id
	@Column(name = "key_hash")
	private String keyHash;

	@Column(name = "principal")
	private String principal;

	@Column(name = "project_id")
	private @Nullable String projectId;

	@Column(name = "active")
	private boolean active;

	protected ApiKeyEntity() {
	}

	public String getKeyHash() {
		return this.keyHash;
	}

	public String getPrincipal() {
		return this.principal;
	}

	public @Nullable String getProjectId() {
		return this.projectId;
	}

	public boolean isActive() {
		return this.active;
	}

}
