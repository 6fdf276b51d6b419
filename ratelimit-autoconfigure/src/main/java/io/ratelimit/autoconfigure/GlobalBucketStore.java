package io.ratelimit.autoconfigure;

import java.util.Objects;

import io.ratelimit.core.bucket.BucketStore;

/**
 * The bucket store of global policies, shared by all replicas (Redis, see
 * {@code io.ratelimit.autoconfigure.redis}). A holder rather than a {@link BucketStore}
 * bean, so that defining it does not make the local store's
 * {@code @ConditionalOnMissingBean(BucketStore.class)} back off: local policies keep their
 * per-replica buckets.
 *
 * @param store the shared store
 */
public record GlobalBucketStore(BucketStore store) {

	public GlobalBucketStore {
		Objects.requireNonNull(store, "store must not be null");
	}

}
