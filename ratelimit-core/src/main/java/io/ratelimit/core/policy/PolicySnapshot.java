package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * An immutable, validated set of policies and the precedence chain over them:
 * <pre>
 * (template, tenant) -&gt; (template, plan) -&gt; (template, global)
 *     -&gt; (default, tenant) -&gt; (default, plan) -&gt; (default, global) -&gt; built-in default
 * UNKNOWN -&gt; (UNKNOWN, global) -&gt; built-in UNKNOWN
 * </pre>
 * The chain always ends in a limit: a missing row never means "no limit". Resolution is a
 * few hash lookups and allocates nothing, so it runs on every request.
 * <p>
 * The snapshot also holds the plans the tenant-to-plan table assigns, loaded with the rows,
 * so that one snapshot answers both which plan a tenant has and what that plan allows
 * ({@link #planOf}).
 * <p>
 * Layered limits (rows with a limit name) are resolved by {@link #resolveLayered}, each
 * name on its own through the same chain, without the built-in fallback: see
 * {@code LayeredLimits}. They apply to known endpoints only; {@code UNKNOWN} keeps its one
 * limit. A snapshot without layered rows answers them with an empty list at no cost.
 */
public final class PolicySnapshot {

	private final long version;

	private final Instant loadedAt;

	private final List<Policy> policies;

	private final List<RejectedRow> rejected;

	private final Map<String, String> tenantPlans;

	private final Map<EndpointTemplate, Candidates> byEndpoint;

	private final Candidates defaults;

	private final Policy builtInDefault;

	private final Policy unknown;

	private final LayeredLimits layered;

	private final EndpointGroups groups;

	private PolicySnapshot(long version, Instant loadedAt, List<Policy> policies, List<RejectedRow> rejected,
			Map<String, String> tenantPlans, PolicySettings settings) {
		this.version = version;
		this.loadedAt = loadedAt;
		this.policies = List.copyOf(policies);
		this.rejected = List.copyOf(rejected);
		this.tenantPlans = assignedPlans(tenantPlans);
		Map<EndpointTemplate, Candidates> byEndpoint = new HashMap<>();
		List<Policy> layered = new ArrayList<>();
		for (Policy policy : policies) {
			if (policy.isLayered()) {
				layered.add(policy);
			}
			else {
				byEndpoint.computeIfAbsent(policy.endpoint(), (endpoint) -> new Candidates()).add(policy);
			}
		}
		this.layered = LayeredLimits.of(layered);
		this.groups = settings.groups();
		this.defaults = Objects.requireNonNullElseGet(byEndpoint.remove(EndpointTemplate.DEFAULT), Candidates::new);
		Candidates unknownRows = byEndpoint.remove(EndpointTemplate.UNKNOWN);
		this.byEndpoint = Map.copyOf(byEndpoint);
		this.builtInDefault = builtIn(EndpointTemplate.DEFAULT, settings.defaultRps(), settings);
		this.unknown = (unknownRows != null && unknownRows.global != null) ? unknownRows.global
				: builtIn(EndpointTemplate.UNKNOWN, settings.unknownRps(), settings);
	}

	/**
	 * Returns the snapshot in use before any row was loaded: the built-in policies alone.
	 * @param settings the built-in limits
	 * @param now the current time
	 * @return a snapshot of version 0
	 */
	public static PolicySnapshot builtIn(PolicySettings settings, Instant now) {
		return new PolicySnapshot(0, now, List.of(), List.of(), Map.of(), settings);
	}

	/**
	 * Validates rows into a snapshot. Invalid rows are kept in {@link #rejected()} with the
	 * reason, and otherwise skipped.
	 * @param rows the rows as stored
	 * @param settings the built-in limits, burst factor and known endpoints
	 * @param version the version of the new snapshot
	 * @param loadedAt when the rows were read
	 * @return the snapshot
	 */
	public static PolicySnapshot of(List<PolicyRow> rows, PolicySettings settings, long version, Instant loadedAt) {
		return of(rows, Map.of(), settings, version, loadedAt);
	}

	/**
	 * Validates rows into a snapshot that also knows the plan of each tenant the
	 * tenant-to-plan table names.
	 * @param rows the rows as stored
	 * @param tenantPlans the plan of each tenant, as the tenant-to-plan table holds them;
	 * entries with a blank plan are left out
	 * @param settings the built-in limits, burst factor and known endpoints
	 * @param version the version of the new snapshot
	 * @param loadedAt when the rows were read
	 * @return the snapshot
	 */
	public static PolicySnapshot of(List<PolicyRow> rows, Map<String, String> tenantPlans, PolicySettings settings,
			long version, Instant loadedAt) {
		Builder builder = new Builder(settings, rows.size());
		rows.forEach(builder::add);
		return builder.build(tenantPlans, version, loadedAt);
	}

	/**
	 * Validates rows one at a time as they are read, into a snapshot.
	 */
	static final class Builder {

		private final PolicySettings settings;

		private final PolicyRowValidator validator;

		/**
		 * Creates a builder.
		 * @param settings the settings rows are validated and completed with
		 * @param expectedRows about how many rows will come
		 */
		Builder(PolicySettings settings, int expectedRows) {
			this.settings = settings;
			this.validator = new PolicyRowValidator(settings, expectedRows);
		}

		void add(PolicyRow row) {
			this.validator.validate(row);
		}

		PolicySnapshot build(Map<String, String> tenantPlans, long version, Instant loadedAt) {
			PolicyRowValidator validation = this.validator.finish();
			return new PolicySnapshot(version, loadedAt, validation.accepted(), validation.rejected(), tenantPlans,
					this.settings);
		}

	}

	/**
	 * Returns the plan of a request: the plan the tenant-to-plan table assigns its tenant,
	 * else the plan its credential carries. The table wins because it changes at once, while
	 * a token's claim lasts as long as the token.
	 * @param tenant the verified tenant of the request, {@code null} for none
	 * @param credentialPlan the plan of the verified credential (an API key's row or a
	 * token's claim), {@code null} for none
	 * @return the plan, {@code null} for none
	 */
	public @Nullable String planOf(@Nullable String tenant, @Nullable String credentialPlan) {
		String assigned = (tenant != null && !this.tenantPlans.isEmpty()) ? this.tenantPlans.get(tenant) : null;
		return (assigned != null) ? assigned : credentialPlan;
	}

	/**
	 * Returns the plans the tenant-to-plan table assigns.
	 * @return the plan of each tenant named in the table
	 */
	public Map<String, String> tenantPlans() {
		return this.tenantPlans;
	}

	/**
	 * Returns the policy for a request to an endpoint by a tenant without a plan.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @return the policy, never {@code null}
	 */
	public Policy resolve(EndpointTemplate endpoint, @Nullable String tenant) {
		return resolve(endpoint, tenant, null);
	}

	/**
	 * Returns the policy for a request to an endpoint by a tenant on a plan.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @param plan the plan of the request ({@link #planOf}), {@code null} for none
	 * @return the policy, never {@code null}
	 */
	public Policy resolve(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan) {
		if (endpoint.isUnknown()) {
			return this.unknown;
		}
		Candidates candidates = this.byEndpoint.get(endpoint);
		Policy policy = (candidates != null) ? candidates.find(tenant, plan) : null;
		if (policy == null) {
			policy = this.defaults.find(tenant, plan);
		}
		return (policy != null) ? policy : this.builtInDefault;
	}

	/**
	 * Returns the layered limits that apply to a request besides its endpoint's own limit
	 * ({@link #resolve}), each resolved through the precedence chain under its own name;
	 * limits switched off for the request are left out.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @return the layered limits in a stable order, empty (and not allocated) when the
	 * snapshot has no layered row or the endpoint is {@code UNKNOWN}
	 */
	public List<Policy> resolveLayered(EndpointTemplate endpoint, @Nullable String tenant) {
		return resolveLayered(endpoint, tenant, null);
	}

	/**
	 * Returns the layered limits that apply to a request on a plan besides its endpoint's
	 * own limit, each resolved through the precedence chain under its own name.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @param plan the plan of the request, {@code null} for none
	 * @return the layered limits in a stable order
	 */
	public List<Policy> resolveLayered(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan) {
		if (this.layered.isEmpty() || endpoint.isUnknown()) {
			return List.of();
		}
		return this.layered.resolve(endpoint, tenant, plan, this.groups);
	}

	/**
	 * Returns whether any layered limit may apply to a request, so that a limiter can skip
	 * their resolution, and what it keeps of it, when none does.
	 * @return whether the snapshot has a layered row
	 */
	public boolean hasLayeredLimits() {
		return !this.layered.isEmpty();
	}

	/**
	 * Resolves like {@link #resolveLayered} and reports, for each layered limit that counts
	 * the endpoint and has a row for the request, every link of its chain tried and the row
	 * found, rows of mode {@code OFF} included.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @return one resolution per layered limit
	 */
	public List<PolicyResolution> explainLayered(EndpointTemplate endpoint, @Nullable String tenant) {
		return explainLayered(endpoint, tenant, null);
	}

	/**
	 * Resolves like {@link #resolveLayered(EndpointTemplate, String, String)} and reports,
	 * for each layered limit that counts the endpoint and has a row for the request, every
	 * link of its chain tried and the row found, rows of mode {@code OFF} included.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @param plan the plan of the request, {@code null} for none
	 * @return one resolution per layered limit
	 */
	public List<PolicyResolution> explainLayered(EndpointTemplate endpoint, @Nullable String tenant,
			@Nullable String plan) {
		if (this.layered.isEmpty() || endpoint.isUnknown()) {
			return List.of();
		}
		return this.layered.explain(endpoint, tenant, plan, this.groups);
	}

	/**
	 * Resolves like {@link #resolve} and reports each link of the chain tried.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @return the resolution
	 */
	public PolicyResolution explain(EndpointTemplate endpoint, @Nullable String tenant) {
		return explain(endpoint, tenant, null);
	}

	/**
	 * Resolves like {@link #resolve(EndpointTemplate, String, String)} and reports each link
	 * of the chain tried.
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @param plan the plan of the request, {@code null} for none
	 * @return the resolution
	 */
	public PolicyResolution explain(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan) {
		List<PolicyResolution.Link> chain = new ArrayList<>();
		if (endpoint.isUnknown()) {
			Policy row = this.unknown.isBuiltIn() ? null : this.unknown;
			chain.add(new PolicyResolution.Link(EndpointTemplate.UNKNOWN, null, row));
			return new PolicyResolution(endpoint, tenant, chain, this.unknown, plan);
		}
		Candidates candidates = this.byEndpoint.getOrDefault(endpoint, new Candidates());
		Policy found = walk(chain, endpoint, tenant, plan, candidates);
		if (found == null) {
			found = walk(chain, EndpointTemplate.DEFAULT, tenant, plan, this.defaults);
		}
		return new PolicyResolution(endpoint, tenant, chain, (found != null) ? found : this.builtInDefault, plan);
	}

	static @Nullable Policy walk(List<PolicyResolution.Link> chain, EndpointTemplate endpoint,
			@Nullable String tenant, @Nullable String plan, Candidates candidates) {
		if (tenant != null) {
			Policy forTenant = candidates.byTenant.get(tenant);
			chain.add(new PolicyResolution.Link(endpoint, tenant, forTenant));
			if (forTenant != null) {
				return forTenant;
			}
		}
		if (plan != null) {
			Policy forPlan = candidates.byPlan.get(plan);
			chain.add(new PolicyResolution.Link(endpoint, null, forPlan, plan));
			if (forPlan != null) {
				return forPlan;
			}
		}
		chain.add(new PolicyResolution.Link(endpoint, null, candidates.global));
		return candidates.global;
	}

	/**
	 * Returns the version, incremented by each successful load.
	 * @return the version, 0 before the first load
	 */
	public long version() {
		return this.version;
	}

	/**
	 * Returns when the rows of this snapshot were read.
	 * @return the load time
	 */
	public Instant loadedAt() {
		return this.loadedAt;
	}

	/**
	 * Returns the policies loaded from rows.
	 * @return the valid policies, without the built-in ones
	 */
	public List<Policy> policies() {
		return this.policies;
	}

	/**
	 * Returns the rows that were rejected, with the reasons.
	 * @return the rejected rows
	 */
	public List<RejectedRow> rejected() {
		return this.rejected;
	}

	/**
	 * Returns the policy that applies when no row matches a known endpoint.
	 * @return the {@code (default, global)} row, or the built-in default
	 */
	public Policy defaultPolicy() {
		Policy global = this.defaults.global;
		return (global != null) ? global : this.builtInDefault;
	}

	/**
	 * Returns the policy for unknown endpoints.
	 * @return the {@code (UNKNOWN, global)} row, or the built-in one
	 */
	public Policy unknownPolicy() {
		return this.unknown;
	}

	private static Map<String, String> assignedPlans(Map<String, String> tenantPlans) {
		Map<String, String> assigned = new HashMap<>();
		tenantPlans.forEach((tenant, plan) -> {
			// A blank plan names nothing a row could target: the tenant keeps its credential's.
			if (tenant != null && plan != null && !plan.isBlank()) {
				assigned.put(tenant, plan);
			}
		});
		return Map.copyOf(assigned);
	}

	private static Policy builtIn(EndpointTemplate endpoint, BigDecimal rps, PolicySettings settings) {
		return new Policy(endpoint, null, rps, PolicyMode.ENFORCE, PolicyScope.LOCAL,
				BucketLimits.of(rps, settings.burstFactor(), 1), Policy.BUILT_IN);
	}

}
