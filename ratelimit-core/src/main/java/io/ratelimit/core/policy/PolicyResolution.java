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
 * @param plan the plan asked about, {@code null} for none
 */
public record PolicyResolution(EndpointTemplate endpoint, @Nullable String tenant, List<Link> chain, Policy policy,
		@Nullable String plan) {

	/**
	 * Creates the resolution of a request without a plan.
	 * @param endpoint the endpoint asked about
	 * @param tenant the tenant asked about, {@code null} for none
	 * @param chain the links tried
	 * @param policy the policy that applies
	 */
	public PolicyResolution(EndpointTemplate endpoint, @Nullable String tenant, List<Link> chain, Policy policy) {
		this(endpoint, tenant, chain, policy, null);
	}

	/**
	 * One link of the chain: an endpoint with a tenant, a plan or neither (global), and the
	 * policy row found for it.
	 *
	 * @param endpoint the endpoint looked up
	 * @param tenant the tenant looked up, {@code null} for a plan's or the global link
	 * @param found the policy found, {@code null} if the table has no such row
	 * @param plan the plan looked up, {@code null} for a tenant's or the global link
	 */
	public record Link(EndpointTemplate endpoint, @Nullable String tenant, @Nullable Policy found,
			@Nullable String plan) {

		/**
		 * Creates a link of a tenant or the global link.
		 * @param endpoint the endpoint looked up
		 * @param tenant the tenant looked up, {@code null} for global
		 * @param found the policy found, {@code null} if the table has no such row
		 */
		public Link(EndpointTemplate endpoint, @Nullable String tenant, @Nullable Policy found) {
			this(endpoint, tenant, found, null);
		}

	}

}
