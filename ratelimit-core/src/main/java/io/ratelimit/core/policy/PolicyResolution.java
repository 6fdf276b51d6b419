package io.ratelimit.core.policy;

import java.util.List;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Why a request gets the policy it gets: every link of the precedence chain that was
 * tried, in order, and the policy chosen.
 *
 * @param endpoint the endpoint asked about
 * @param tenant the tenant asked about, {@code null} for none
 * @param chain the links tried, the last one being the match (or the built-in fallback)
 * @param policy the policy that applies
 */
public record PolicyResolution(EndpointTemplate endpoint, @Nullable String tenant, List<Link> chain, Policy policy) {

	/**
	 * One link of the chain: a (endpoint, tenant) pair and the policy row found for it.
	 *
	 * @param endpoint the endpoint looked up
	 * @param tenant the tenant looked up, {@code null} for global
	 * @param found the policy found, {@code null} if the table has no such row
	 */
	public record Link(EndpointTemplate endpoint, @Nullable String tenant, @Nullable Policy found) {
	}

}
