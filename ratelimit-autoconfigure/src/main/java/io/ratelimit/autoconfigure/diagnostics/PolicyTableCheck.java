package io.ratelimit.autoconfigure.diagnostics;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LeaseSizing;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyMode;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.PolicySnapshot;
import io.ratelimit.core.policy.RejectedRow;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;

/**
 * Checks each successfully loaded policy table against the configuration, and warns
 * about each problem once, when it first appears in a load:
 * <ul>
 * <li>{@link Diagnostic#W004}: no global {@code default} row, or no {@code UNKNOWN} row,
 * so the built-in limit of {@code ratelimit.policy.default-rps} or
 * {@code ratelimit.policy.unknown-rps} applies;</li>
 * <li>{@link Diagnostic#W005}: a weight in {@code ratelimit.weights} exceeds the capacity
 * ({@code burst-factor x rps_limit}) of a row that applies to that endpoint, so the
 * limiter raises the bucket's capacity to the weight and the row allows bigger bursts
 * than it says;</li>
 * <li>{@link Diagnostic#W006}: a row names a template the application does not serve, so
 * it was rejected;</li>
 * <li>{@link Diagnostic#W014}: of two enforced rows that charge the same requests to buckets
 * of the same reach (same endpoint, tenant, target and unit), one holds at least as much and
 * refills at least as fast as the other, so it can never refuse first;</li>
 * <li>{@link Diagnostic#W015}: the tenant-to-plan table puts tenants on a plan no loaded
 * row is for, so they get the rows for everyone;</li>
 * <li>{@link Diagnostic#W018}: a {@code GLOBAL_BATCHED} row's bucket is so small that the
 * credit of a key a replica decides before Redis answers is a whole request, many times
 * the share of the capacity it is meant to be;</li>
 * <li>{@link Diagnostic#W019}: a {@code GLOBAL_BATCHED} row's bucket is so small and slow
 * that its keys get no credit, so a replica's first request of a key waits for Redis.</li>
 * </ul>
 * A problem that persists is not repeated on the next reload; one that goes away and
 * comes back is reported again. Only the problems of the latest load are remembered.
 */
public class PolicyTableCheck implements InitializingBean {

	private static final Log logger = LogFactory.getLog(PolicyTableCheck.class);

	private final ReloadablePolicies policies;

	private final EndpointWeights weights;

	private final double batchedCreditShare;

	private Set<String> reported = Set.of();

	/**
	 * Creates a check.
	 * @param policies the policies to follow
	 * @param weights the configured weights
	 * @param batchedCreditShare {@code ratelimit.redis.batch.cold-key-share}: what a replica
	 * may admit of a key on credit, as a share of the capacity
	 */
	public PolicyTableCheck(ReloadablePolicies policies, EndpointWeights weights, double batchedCreditShare) {
		this.policies = Objects.requireNonNull(policies, "policies must not be null");
		this.weights = Objects.requireNonNull(weights, "weights must not be null");
		this.batchedCreditShare = batchedCreditShare;
	}

	@Override
	public void afterPropertiesSet() {
		this.policies.addListener(this::onReload);
		PolicySnapshot current = this.policies.current();
		if (current.version() > 0) {
			// Loaded before this check existed: look at it now, the listener sees the rest.
			check(current);
		}
	}

	private void onReload(PolicyReloadResult result) {
		if (result.succeeded()) {
			check(result.snapshot());
		}
	}

	/**
	 * Checks a snapshot, warning about the problems the previous check did not report.
	 * @param snapshot a snapshot loaded from the policy table
	 */
	synchronized void check(PolicySnapshot snapshot) {
		Map<String, String> problems = new LinkedHashMap<>();
		missingRows(snapshot, problems);
		oversizedWeights(snapshot, problems);
		unknownEndpoints(snapshot, problems);
		neverBindingLayers(snapshot, problems);
		plansWithoutRows(snapshot, problems);
		wholeRequestCredit(snapshot, problems);
		noCredit(snapshot, problems);
		problems.forEach((key, message) -> {
			if (!this.reported.contains(key)) {
				logger.warn(message);
			}
		});
		this.reported = Set.copyOf(problems.keySet());
	}

	private void missingRows(PolicySnapshot snapshot, Map<String, String> problems) {
		PolicySettings settings = this.policies.settings();
		if (snapshot.defaultPolicy().isBuiltIn()) {
			problems.put("W004 default", Diagnostic.W004.message("The policy table has no 'default' row with "
					+ "project_id NULL, so every endpoint without a row of its own is limited by the built-in "
					+ "ratelimit.policy.default-rps (" + plain(settings.defaultRps()) + " requests per second). "
					+ "Add such a row to rate_limit_policy, or set ratelimit.policy.default-rps to the limit you "
					+ "mean."));
		}
		if (snapshot.unknownPolicy().isBuiltIn()) {
			problems.put("W004 UNKNOWN", Diagnostic.W004.message("The policy table has no 'UNKNOWN' row, so "
					+ "requests the application has no handler for are limited by the built-in "
					+ "ratelimit.policy.unknown-rps (" + plain(settings.unknownRps()) + " requests per second per "
					+ "client network). Add an 'UNKNOWN' row with project_id NULL to rate_limit_policy, or set "
					+ "ratelimit.policy.unknown-rps to the limit you mean."));
		}
	}

	private void oversizedWeights(PolicySnapshot snapshot, Map<String, String> problems) {
		if (this.weights.asMap().isEmpty()) {
			return;
		}
		// Whatever tenant a request has, it resolves like one of these.
		Set<@Nullable String> tenants = new HashSet<>();
		tenants.add(null);
		snapshot.policies().forEach((policy) -> tenants.add(policy.tenant()));
		Set<@Nullable String> plans = new HashSet<>();
		plans.add(null);
		snapshot.policies().forEach((policy) -> plans.add(policy.plan()));
		this.weights.asMap().forEach((endpoint, weight) -> {
			Set<Policy> applying = new HashSet<>();
			tenants.forEach((tenant) -> plans.forEach((plan) -> applying.add(snapshot.resolve(endpoint, tenant, plan))));
			applying.stream()
				.filter((policy) -> !policy.isBuiltIn() && policy.mode() != PolicyMode.OFF)
				.filter((policy) -> weight * BucketLimits.UNITS_PER_TOKEN > policy.limits().capacityUnits())
				.forEach((policy) -> problems.put("W005 " + policy.origin() + " " + endpoint + "=" + weight,
						oversizedWeight(endpoint, weight, policy)));
		});
	}

	private String oversizedWeight(EndpointTemplate endpoint, int weight, Policy policy) {
		BigDecimal burstFactor = this.policies.settings().burstFactor();
		BigDecimal capacity = BigDecimal.valueOf(policy.limits().capacityUnits(), 3);
		BigDecimal neededRps = BigDecimal.valueOf(weight).divide(burstFactor, 6, RoundingMode.CEILING);
		return Diagnostic.W005.message("The weight " + weight + " of '" + endpoint + "' (ratelimit.weights entry '"
				+ endpoint + "=" + weight + "') exceeds the capacity of " + plain(capacity) + " tokens of "
				+ policy.origin() + " (endpoint '" + policy.endpoint() + "', project_id "
				+ ((policy.tenant() != null) ? "'" + policy.tenant() + "'" : "NULL") + ": rps_limit "
				+ plain(policy.rps()) + " x burst factor " + plain(burstFactor) + "), which applies to that "
				+ "endpoint. The limiter silently raises that bucket's capacity to " + weight + " tokens so such a "
				+ "request can pass at all, so the row allows larger bursts than it says. Raise rps_limit of "
				+ policy.origin() + " to at least " + plain(neededRps) + ", raise ratelimit.burst-factor, or lower "
				+ "the weight.");
	}

	private void neverBindingLayers(PolicySnapshot snapshot, Map<String, String> problems) {
		// Only a layered row can share its requests with another row (an endpoint has one own
		// limit per tenant or plan), so only the rows of an endpoint and tenant or plan with a
		// layered row are compared: with a million tenants' own limits, that is a few.
		Set<List<Object>> layeredScopes = new HashSet<>();
		for (Policy policy : snapshot.policies()) {
			if (policy.isLayered()) {
				layeredScopes.add(Arrays.asList(policy.endpoint(), policy.tenant(), policy.plan()));
			}
		}
		if (layeredScopes.isEmpty()) {
			return;
		}
		Map<List<Object>, List<Policy>> sameRequests = new LinkedHashMap<>();
		for (Policy policy : snapshot.policies()) {
			if (policy.mode() == PolicyMode.ENFORCE && (policy.isLayered()
					|| layeredScopes.contains(Arrays.asList(policy.endpoint(), policy.tenant(), policy.plan())))) {
				sameRequests.computeIfAbsent(Arrays.asList(policy.endpoint(), policy.tenant(), policy.plan(),
						policy.target(), policy.group(), policy.unit()), (key) -> new ArrayList<>()).add(policy);
			}
		}
		for (List<Policy> layered : sameRequests.values()) {
			for (Policy looser : layered) {
				for (Policy tighter : layered) {
					if (looser != tighter && neverRefusesFirst(looser.limits(), tighter.limits())
							&& (!neverRefusesFirst(tighter.limits(), looser.limits()) || isRedundantTwin(looser, tighter))) {
						// Once per row: the first row that makes it pointless says enough.
						problems.putIfAbsent("W014 " + looser.origin(), neverBinds(looser, tighter));
					}
				}
			}
		}
	}

	/**
	 * Of two rows of the same shape, the one to report: a layered one rather than the
	 * endpoint's own, else the later row.
	 */
	private static boolean isRedundantTwin(Policy policy, Policy twin) {
		if (policy.isLayered() != twin.isLayered()) {
			return policy.isLayered();
		}
		return policy.origin().compareTo(twin.origin()) > 0;
	}

	/**
	 * Whether a bucket never runs dry before another over the same requests: it holds as
	 * much or more, and refills as fast or faster.
	 */
	private static boolean neverRefusesFirst(BucketLimits looser, BucketLimits tighter) {
		double looserRate = (double) looser.capacityUnits() / looser.refillPeriodNanos();
		double tighterRate = (double) tighter.capacityUnits() / tighter.refillPeriodNanos();
		return looser.capacityUnits() >= tighter.capacityUnits() && looserRate >= tighterRate;
	}

	private static String neverBinds(Policy looser, Policy tighter) {
		return Diagnostic.W014.message("Policy row " + describe(looser) + " can never refuse a request: every "
				+ "request it counts also counts against " + describe(tighter) + ", whose bucket is no larger and "
				+ "refills no faster, so that one always refuses first. Lower the limit of " + looser.origin()
				+ " below " + tighter.origin() + "'s (for a longer window, less than the shorter window's rate times "
				+ "the longer window), or delete it.");
	}

	private static String describe(Policy policy) {
		String limit = (policy.limitName() != null) ? "limit '" + policy.limitName() + "'" : "the endpoint's own limit";
		return policy.origin().replace("row ", "") + " (" + limit + " of '" + policy.endpoint() + "', "
				+ ((policy.plan() != null) ? "plan '" + policy.plan() + "'"
						: "project_id " + ((policy.tenant() != null) ? "'" + policy.tenant() + "'" : "NULL"))
				+ ": q=" + policy.limits().quota()
				+ ", w=" + policy.limits().windowSeconds() + ")";
	}

	/**
	 * Batched rows whose credit is a whole request, a larger share of the limit than the
	 * setting says ({@link LeaseSizing#creditIsWholeRequest}): every replica may admit a
	 * request of a key before Redis has charged it. Requests of one token are assumed: a
	 * weight only makes the credit larger still. One warning names the first such rows and
	 * counts the rest, a million tenants' rows must not make a million lines, and it is not
	 * repeated while such rows remain, however many come and go.
	 */
	private void wholeRequestCredit(PolicySnapshot snapshot, Map<String, String> problems) {
		String rows = smallBatchedRows(snapshot,
				(limits) -> LeaseSizing.creditIsWholeRequest(limits, this.batchedCreditShare));
		if (rows != null) {
			problems.put("W018", Diagnostic.W018.message("GLOBAL_BATCHED policy row(s) " + rows + " hold fewer than "
					+ fewestTokensForARequest() + " tokens and refill one within a second, so their credit "
					+ "(ratelimit.redis.batch.cold-key-share " + this.batchedCreditShare + " of the capacity, or the "
					+ "request if that is more) is a whole request: each replica may admit a request of a key before "
					+ "Redis has charged it, and with n replicas a key may get up to 2 x n requests beyond the limit "
					+ "before the debt holds it back as long. Make such rows GLOBAL for an exact limit of this size, "
					+ "or accept that bound."));
		}
	}

	/**
	 * Batched rows whose keys get no credit ({@link LeaseSizing#coldKeysWait}): a replica's
	 * first request of a key waits for Redis, which a row marked batched so that no request
	 * waits would not lead anyone to expect. Not reported when the setting gives no key
	 * credit: that is the operator's choice. One warning for all such rows, as for W018.
	 */
	private void noCredit(PolicySnapshot snapshot, Map<String, String> problems) {
		if (this.batchedCreditShare == 0) {
			return;
		}
		String rows = smallBatchedRows(snapshot, (limits) -> LeaseSizing.coldKeysWait(limits, this.batchedCreditShare));
		if (rows != null) {
			problems.put("W019", Diagnostic.W019.message("GLOBAL_BATCHED policy row(s) " + rows + " hold fewer than "
					+ fewestTokensForARequest() + " tokens and take more than a second to refill one, so their keys "
					+ "get no credit: a replica's first request of a key waits for Redis (a round trip), as under "
					+ "GLOBAL. Credit of a whole request would let n replicas admit up to 2 x n requests beyond a "
					+ "limit this small and slow (a login limit's shape) for minutes. Make such rows GLOBAL, which "
					+ "they match for new keys, or accept the round trip on a key's first request."));
		}
	}

	/**
	 * Names the first three enforced batched rows whose limits match and counts the rest:
	 * a million tenants' rows must not make a million lines, and the warning is not repeated
	 * while such rows remain, however many come and go. Requests of one token are assumed.
	 * @return the rows, or {@code null} when there are none
	 */
	private static @Nullable String smallBatchedRows(PolicySnapshot snapshot, Predicate<BucketLimits> matches) {
		List<Policy> small = snapshot.policies()
			.stream()
			.filter((policy) -> policy.isBatched() && policy.mode() != PolicyMode.OFF && matches.test(policy.limits()))
			.toList();
		if (small.isEmpty()) {
			return null;
		}
		List<String> named = small.stream().limit(3).map(PolicyTableCheck::describe).toList();
		String others = (small.size() > named.size()) ? " and " + (small.size() - named.size()) + " more" : "";
		return String.join(", ", named) + others;
	}

	/** The fewest tokens whose cold-key share makes a request. */
	private String fewestTokensForARequest() {
		return plain(BigDecimal.ONE.divide(BigDecimal.valueOf(this.batchedCreditShare), 3, RoundingMode.CEILING));
	}

	private static void plansWithoutRows(PolicySnapshot snapshot, Map<String, String> problems) {
		if (snapshot.tenantPlans().isEmpty()) {
			return;
		}
		Set<String> targeted = new HashSet<>();
		snapshot.policies().forEach((policy) -> {
			if (policy.plan() != null) {
				targeted.add(policy.plan());
			}
		});
		Map<String, List<String>> tenantsByPlan = new TreeMap<>();
		snapshot.tenantPlans().forEach((tenant, plan) -> {
			if (!targeted.contains(plan)) {
				tenantsByPlan.computeIfAbsent(plan, (key) -> new ArrayList<>()).add(tenant);
			}
		});
		tenantsByPlan.forEach((plan, tenants) -> problems.put("W015 " + plan, planWithoutRows(plan, tenants)));
	}

	private static String planWithoutRows(String plan, List<String> tenants) {
		return Diagnostic.W015.message("The table rate_limit_tenant_plan puts " + tenants.size() + " tenant(s), such "
				+ "as '" + Collections.min(tenants) + "', on the plan '" + plan + "', but no policy row of "
				+ "rate_limit_policy is for that plan, so those tenants get the rows for everyone. Correct the plan's "
				+ "name in rate_limit_tenant_plan if it is misspelt, or add rows for the plan (column plan) to "
				+ "rate_limit_policy.");
	}

	private void unknownEndpoints(PolicySnapshot snapshot, Map<String, String> problems) {
		for (RejectedRow rejected : snapshot.rejected()) {
			EndpointTemplate endpoint = unknownEndpoint(rejected);
			if (endpoint != null) {
				String id = rejected.row().id();
				problems.put("W006 " + id + " " + endpoint, Diagnostic.W006.message("Policy row " + id
						+ " names the endpoint '" + endpoint + "', which the application does not serve, so the row "
						+ "was rejected and limits nothing. Change the endpoint of row " + id + " in "
						+ "rate_limit_policy to one of the application's templates (the 'ratelimit' Actuator "
						+ "endpoint explains which template a path is), or delete the row."));
			}
		}
	}

	private @Nullable EndpointTemplate unknownEndpoint(RejectedRow rejected) {
		String text = rejected.row().endpoint();
		if (text == null) {
			return null;
		}
		try {
			EndpointTemplate endpoint = EndpointTemplate.parse(text);
			return (!endpoint.isReserved() && !this.policies.settings().knownEndpoints().test(endpoint)) ? endpoint
					: null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static String plain(BigDecimal value) {
		return value.stripTrailingZeros().toPlainString();
	}

}
