package io.ratelimit.core.policy;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads every policy row, e.g. from the {@code rate_limit_policy} table, and the plan of
 * each tenant that has one assigned, e.g. from the {@code rate_limit_tenant_plan} table.
 * Called on reload, never on the request path.
 */
@FunctionalInterface
public interface PolicySource {

	/**
	 * Reads all rows as stored, invalid ones included.
	 * @return the rows
	 * @throws Exception if the rows cannot be read; the last good snapshot stays in use
	 */
	List<PolicyRow> load() throws Exception;

	/**
	 * Reads all rows as {@link #load()} does, handing them over one at a time, so that a
	 * table of a million rows is never held whole beside the policies made of it. A source
	 * that can stream its rows overrides this; the default reads them with {@link #load()}.
	 * <p>
	 * The reader may stop the read by throwing: the exception is to reach the caller, and
	 * the rows not read yet need not be read.
	 * @param reader told each row in turn
	 * @throws Exception if the rows cannot be read, or the reader threw; the last good
	 * snapshot stays in use
	 */
	default void read(Consumer<? super PolicyRow> reader) throws Exception {
		load().forEach(reader);
	}

	/**
	 * Reads the plan the operator assigned to each tenant. A source without such
	 * assignments has none: tenants then have the plan their credential carries, if any.
	 * @return the plan of each tenant named, by tenant ({@code project_id})
	 * @throws Exception if the assignments cannot be read; the last good snapshot stays in
	 * use
	 */
	default Map<String, String> loadTenantPlans() throws Exception {
		return Map.of();
	}

}
