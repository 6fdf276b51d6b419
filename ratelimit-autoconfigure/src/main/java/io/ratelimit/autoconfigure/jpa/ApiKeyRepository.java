package io.ratelimit.autoconfigure.jpa;

import java.util.List;

import io.ratelimit.autoconfigure.jpa.model.ApiKeyEntity;
import io.ratelimit.core.identity.ApiKey;

import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

/**
 * Reads the active rows of {@code rate_limit_api_key}.
 */
public interface ApiKeyRepository extends Repository<ApiKeyEntity, String> {

	/**
	 * Reads active keys as plain values: a million keys must not become a million managed
	 * entities in the persistence context.
	 * @param limit the most rows to read
	 * @return the active keys
	 */
	@Query("select new io.ratelimit.core.identity.ApiKey(k.keyHash, k.principal, k.projectId, k.active, k.plan) "
			+ "from ApiKeyEntity k where k.active = true")
	List<ApiKey> findActive(Limit limit);

}
