package io.ratelimit.core.identity;

import java.util.List;

/**
 * Reads the active API keys, e.g. from the {@code rate_limit_api_key} table. Called on
 * reload, never on the request path: the keys are held in memory by
 * {@link ReloadableApiKeys}, so a presented key costs no query, whether it exists or not.
 */
@FunctionalInterface
public interface ApiKeySource {

	/**
	 * Reads the active keys, at most {@code limit} of them.
	 * @param limit the most keys to read; a caller that accepts {@code n} keys asks for
	 * {@code n + 1} to tell a full table from an overfull one without reading it all
	 * @return the active keys
	 * @throws Exception if the keys cannot be read; the keys loaded before stay in use
	 */
	List<ApiKey> loadActive(int limit) throws Exception;

}
