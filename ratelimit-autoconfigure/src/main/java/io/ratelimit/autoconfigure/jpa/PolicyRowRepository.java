package io.ratelimit.autoconfigure.jpa;

import java.util.List;

import io.ratelimit.autoconfigure.jpa.model.PolicyRowEntity;

import org.springframework.data.repository.Repository;

/**
 * Reads {@code rate_limit_policy}.
 */
public interface PolicyRowRepository extends Repository<PolicyRowEntity, Long> {

	List<PolicyRowEntity> findAllByOrderByIdAsc();

}
