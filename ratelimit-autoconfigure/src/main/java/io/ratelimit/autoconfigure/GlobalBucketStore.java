package io.ratelimit.autoconfigure;

import java.util.Objects;

import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore;
import org.jspecify.annotations.Nullable;

/**
 * The bucket stores of global policies, shared by all replicas (Redis, see
 * {@code io.ratelimit.autoconfigure.redis}). A holder rather than a {@link BucketStore}
 * bean, so that defining it does not make the local store's
 * {@code @ConditionalOnMissingBean(BucketStore.class)} back off: local policies keep their
 * per-replica buckets.
 *
 * @param store the shared store of {@code GLOBAL} policies
 * @param batched the store of {@code GLOBAL_BATCHED} policies
 * @param leases the leases behind {@code batched}, for {@code explain}; {@code null} when
 * batched policies are decided by {@code store}
 */
public record GlobalBucketStore(BucketStore store, BucketStore batched, @Nullable LeasedBucketStore leases) {

	public GlobalBucketStore {
		Objects.requireNonNull(store, "store must not be null");
		Objects.requireNonNull(batched, "batched must not be null");
	}

	/**
	 * Creates a holder whose batched policies are decided exactly, by the shared store.
	 * @param store the shared store
	 */
	public GlobalBucketStore(BucketStore store) {
		this(store, store, null);
	}

}
