package io.ratelimit.core.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * The layered limits of a snapshot, resolved per limit name: for each name, the same fixed
 * chain as an endpoint's own limit, {@code (template, tenant) -> (template, plan) ->
 * (template, global) -> (default, tenant) -> (default, plan) -> (default, global)}, but
 * without a built-in fallback (a layered limit no row gives a request does not apply to
 * it). Group and API-wide limits have {@code default} rows only, so their chain is the last
 * three links. A limit resolved to a row of mode {@code OFF} does not apply either: that is
 * how one tenant, or every tenant of a plan, is exempted.
 */
final class LayeredLimits {

	static final LayeredLimits NONE = new LayeredLimits(List.of());

	private final List<NamedLimit> limits;

	private LayeredLimits(List<NamedLimit> limits) {
		this.limits = limits;
	}

	/**
	 * Groups the layered policies by limit name, in the order their first rows come.
	 * @param policies validated policies, all of them layered, names agreeing on targets
	 */
	static LayeredLimits of(List<Policy> policies) {
		if (policies.isEmpty()) {
			return NONE;
		}
		Map<String, NamedLimit> byName = new LinkedHashMap<>();
		for (Policy policy : policies) {
			String name = Objects.requireNonNull(policy.limitName());
			byName.computeIfAbsent(name, (key) -> new NamedLimit(policy.target(), policy.group())).add(policy);
		}
		return new LayeredLimits(List.copyOf(byName.values()));
	}

	boolean isEmpty() {
		return this.limits.isEmpty();
	}

	/**
	 * Returns the layered limits that apply to a request, in a stable order.
	 */
	List<Policy> resolve(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan,
			EndpointGroups groups) {
		List<Policy> applied = null;
		for (NamedLimit limit : this.limits) {
			if (!limit.counts(endpoint, groups)) {
				continue;
			}
			Policy policy = limit.find(endpoint, tenant, plan);
			if (policy != null && policy.mode() != PolicyMode.OFF) {
				if (applied == null) {
					applied = new ArrayList<>(this.limits.size());
				}
				applied.add(policy);
			}
		}
		return (applied != null) ? applied : List.of();
	}

	/**
	 * Returns, for each layered limit that counts the endpoint, every link of its chain
	 * tried and the row found, {@code OFF} rows included; limits no row gives the request
	 * are left out.
	 */
	List<PolicyResolution> explain(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan,
			EndpointGroups groups) {
		List<PolicyResolution> resolutions = new ArrayList<>();
		for (NamedLimit limit : this.limits) {
			if (!limit.counts(endpoint, groups)) {
				continue;
			}
			List<PolicyResolution.Link> chain = new ArrayList<>();
			Policy found = null;
			Candidates own = limit.byEndpoint.get(endpoint);
			if (own != null || limit.target == LimitTarget.ENDPOINT) {
				found = PolicySnapshot.walk(chain, endpoint, tenant, plan, (own != null) ? own : new Candidates());
			}
			if (found == null) {
				found = PolicySnapshot.walk(chain, EndpointTemplate.DEFAULT, tenant, plan, limit.defaults);
			}
			if (found != null) {
				resolutions.add(new PolicyResolution(endpoint, tenant, chain, found, plan));
			}
		}
		return resolutions;
	}

	/**
	 * The rows of one limit name.
	 */
	private static final class NamedLimit {

		private final LimitTarget target;

		private final @Nullable String group;

		private final Map<EndpointTemplate, Candidates> byEndpoint = new HashMap<>();

		private final Candidates defaults = new Candidates();

		NamedLimit(LimitTarget target, @Nullable String group) {
			this.target = target;
			this.group = group;
		}

		void add(Policy policy) {
			if (policy.endpoint().equals(EndpointTemplate.DEFAULT)) {
				this.defaults.add(policy);
			}
			else {
				this.byEndpoint.computeIfAbsent(policy.endpoint(), (endpoint) -> new Candidates()).add(policy);
			}
		}

		boolean counts(EndpointTemplate endpoint, EndpointGroups groups) {
			return this.target != LimitTarget.GROUP || groups.contains(Objects.requireNonNull(this.group), endpoint);
		}

		@Nullable Policy find(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan) {
			Candidates own = this.byEndpoint.get(endpoint);
			Policy policy = (own != null) ? own.find(tenant, plan) : null;
			return (policy != null) ? policy : this.defaults.find(tenant, plan);
		}

	}

}
