package io.ratelimit.core.concurrency;

import io.ratelimit.core.bucket.BucketKey;
import org.jspecify.annotations.Nullable;

/**
 * Holds the permits of requests in progress, by caller key. Implementations must be
 * thread-safe, must never hand out more permits for a key than the limit however many
 * threads ask at once, and must bound their state: a key takes room only while it holds a
 * permit.
 */
public interface PermitStore {

	/**
	 * Takes a permit for a key if fewer than {@code limit} are held.
	 * @param key the caller's key under the limit
	 * @param limit the most permits the key may hold, at least 1
	 * @return the permit, or {@code null} if the key holds {@code limit} already (or the
	 * store has no room for one more key)
	 * @throws RuntimeException if a shared store cannot be reached; the limiter then follows
	 * its failure mode, and no permit is held
	 */
	@Nullable Permit tryAcquire(BucketKey key, int limit);

	/**
	 * Returns the permits held now, for metrics and health: read when asked, never on the
	 * request path.
	 * @return the permits held by this store (of a shared store: by this replica)
	 */
	long permitsHeld();

	/**
	 * Returns how many keys hold at least one permit.
	 * @return the keys holding permits (of a shared store: from this replica)
	 */
	long keys();

	/**
	 * Returns how many permits were refused because the store had no room for another key.
	 * @return the count since the store was created
	 */
	long refusedForRoom();

}
