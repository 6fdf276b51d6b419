package io.ratelimit.autoconfigure.jpa;

import java.util.Optional;

import io.ratelimit.autoconfigure.jpa.model.ApiKeyEntity;

import org.springframework.data.repository.Repository;

/**
 * Reads {@code rate_limit_api_key} by key hash.
 */
public interface ApiKeyRepository extends Repository<ApiKeyEntity, String> {

	Optional<ApiKeyEntity> findById(String keyHash);

}
