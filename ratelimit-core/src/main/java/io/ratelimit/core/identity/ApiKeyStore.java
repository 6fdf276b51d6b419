package io.ratelimit.core.identity;

import org.jspecify.annotations.Nullable;

/**
 * Looks up API keys by their keyed hash. The Spring integration reads a table; anything
 * that can answer by hash will do.
 * <p>
 * An exception (the database is down) is treated as "not found this time": the request is
 * limited by its network identity and the answer is not cached.
 */
@FunctionalInterface
public interface ApiKeyStore {

	/**
	 * Finds the key with the given hash.
	 * @param keyHash the lower-case hex HMAC-SHA256 of the presented key
	 * @return the stored key, active or not, or {@code null} if there is none
	 */
	@Nullable ApiKey findByHash(String keyHash);

}
