package io.ratelimit.autoconfigure.jpa.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.jspecify.annotations.Nullable;

/**
 * A row of {@code rate_limit_api_key}, read-only: the keyed hash of a key, never the key.
 * Mapped for queries only; they select its fields as
 * {@link io.ratelimit.core.identity.ApiKey} values, never the entity itself.
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

	@Column(name = "plan")
	private @Nullable String plan;

	protected ApiKeyEntity() {
	}

}
