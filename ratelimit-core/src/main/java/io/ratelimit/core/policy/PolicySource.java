package io.ratelimit.core.policy;

import java.util.List;

/**
 * Reads every policy row, e.g. from the {@code rate_limit_policy} table. Called on
 * reload, never on the request path.
 */
@FunctionalInterface
public interface PolicySource {

	/**
	 * Reads all rows as stored, invalid ones included.
	 * @return the rows
	 * @throws Exception if the rows cannot be read; the last good snapshot stays in use
	 */
	List<PolicyRow> load() throws Exception;

}
