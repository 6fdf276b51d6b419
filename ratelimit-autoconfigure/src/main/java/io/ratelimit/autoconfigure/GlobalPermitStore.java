package io.ratelimit.autoconfigure;

import java.util.Objects;

import io.ratelimit.core.concurrency.PermitStore;

/**
 * The permit store of {@code GLOBAL} in-flight limits, shared by all replicas (Redis, see
 * {@code io.ratelimit.autoconfigure.redis}). A holder rather than a {@link PermitStore}
 * bean, so that defining it does not make the local store's
 * {@code @ConditionalOnMissingBean(PermitStore.class)} back off: local in-flight limits keep
 * their per-replica permits.
 *
 * @param store the shared store
 */
public record GlobalPermitStore(PermitStore store) {

	public GlobalPermitStore {
		Objects.requireNonNull(store, "store must not be null");
	}

}
