package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Turns policy rows into policies, rejecting each bad row with the reason. A bad row never
 * stops the others, and duplicates (same endpoint, tenant or plan, and limit name) resolve to
 * the strictest row, so a mistake in the table can make a limit tighter but never looser. All
 * rows of one limit name must agree on what the limit applies to, since that decides whose
 * requests share its buckets; a row that disagrees with the first one is rejected.
 */
final class PolicyRowValidator {

	/** The longest name a layered limit may have: it is sent in every response. */
	static final int MAXIMUM_NAME_LENGTH = 64;

	/** The longest plan name: the length of the plan columns. */
	static final int MAXIMUM_PLAN_LENGTH = 64;

	/** The longest window a bucket counts over. */
	static final Duration MAXIMUM_WINDOW = Duration.ofDays(31);

	/** The most requests an in-flight limit may allow in progress at once. */
	static final long MAXIMUM_IN_FLIGHT = 1_000_000;

	/** The most a bucket may hold: the largest rate times the largest burst factor. */
	static final long MAXIMUM_CAPACITY = PolicySettings.MAXIMUM_RPS.multiply(PolicySettings.MAXIMUM_BURST_FACTOR)
		.longValueExact();

	private final PolicySettings settings;

	private final List<Policy> accepted = new ArrayList<>();

	private final List<RejectedRow> rejected = new ArrayList<>();

	private final StrictestRows strictest;

	private final Map<String, Policy> firstOfName = new HashMap<>();

	/** What each distinct row, but for its id, tenant and plan, comes to: validated once. */
	private final Map<RowTerms, Outcome> outcomes = new HashMap<>();

	/**
	 * Creates a validator.
	 * @param settings the settings rows are validated and completed with
	 * @param expectedRows about how many rows will come, so that a table of a million rows
	 * is not indexed through twenty resizes of a growing one
	 */
	PolicyRowValidator(PolicySettings settings, int expectedRows) {
		this.settings = settings;
		this.strictest = new StrictestRows(expectedRows, this.rejected);
	}

	/**
	 * Ends validation: the rows given to {@link #validate(PolicyRow)} are accepted or rejected.
	 */
	PolicyRowValidator finish() {
		this.accepted.addAll(this.strictest.policies());
		this.outcomes.clear();
		return this;
	}

	List<Policy> accepted() {
		return this.accepted;
	}

	List<RejectedRow> rejected() {
		return this.rejected;
	}

	/**
	 * Validates one row; {@link #finish()} when all are given.
	 */
	void validate(PolicyRow row) {
		Outcome outcome = this.outcomes.computeIfAbsent(RowTerms.of(row), this::outcome);
		String problem = (outcome.endpointProblem() != null) ? outcome.endpointProblem()
				: tenantProblem(row.tenant(), Objects.requireNonNull(outcome.endpoint()));
		if (problem == null) {
			problem = planProblem(row, Objects.requireNonNull(outcome.endpoint()));
		}
		if (problem == null) {
			problem = outcome.problem();
		}
		if (problem != null) {
			this.rejected.add(new RejectedRow(row, problem));
			return;
		}
		Policy policy = new Policy(Objects.requireNonNull(outcome.terms()), row.tenant(), row.plan(),
				"row " + row.id());
		String conflict = conflict(policy);
		if (conflict != null) {
			this.rejected.add(new RejectedRow(row, conflict));
			return;
		}
		this.strictest.add(outcome.row(), policy);
	}

	/**
	 * Validates what rows of the same terms have in common: everything but the tenant and
	 * plan.
	 */
	private Outcome outcome(RowTerms terms) {
		PolicyRow row = terms.toRow("", null, null);
		String endpointProblem = endpointProblem(row);
		if (endpointProblem != null) {
			return new Outcome(terms, null, endpointProblem, null, null);
		}
		EndpointTemplate endpoint = EndpointTemplate.parse(Objects.requireNonNull(row.endpoint()));
		String problem = problem(row, endpoint);
		if (problem != null) {
			return new Outcome(terms, endpoint, null, problem, null);
		}
		PolicyMode mode = Objects.requireNonNull(PolicyMode.parse(row.mode()));
		PolicyScope scope = Objects.requireNonNull(PolicyScope.parse(row.scope()));
		LimitUnit unit = Objects.requireNonNull(LimitUnit.parse(row.counts()));
		BucketLimits limits;
		try {
			// An in-flight limit has no bucket: its shape only carries the count, q=count.
			limits = (unit == LimitUnit.IN_FLIGHT)
					? BucketLimits.perWindow(Objects.requireNonNull(row.limitCount()), Duration.ofSeconds(1),
							row.limitCount())
					: (row.rpsLimit() != null) ? BucketLimits.of(row.rpsLimit(), this.settings.burstFactor(), 1)
					: BucketLimits.perWindow(Objects.requireNonNull(row.limitCount()), window(row),
							Objects.requireNonNullElse(row.burst(), row.limitCount()));
		}
		catch (IllegalArgumentException | ArithmeticException ex) {
			// Whatever the checks above missed, one row must not fail the whole load.
			return new Outcome(terms, endpoint, null, "the limit cannot be represented: " + ex.getMessage(), null);
		}
		BigDecimal rps = (row.rpsLimit() != null) ? row.rpsLimit() : limits.rps();
		return new Outcome(terms, endpoint, null, null,
				new PolicyTerms(endpoint, rps, mode, scope, limits, blankToNull(row.limitName()),
						Objects.requireNonNull(LimitTarget.parse(row.appliesTo())), blankToNull(row.group()), unit));
	}

	private @Nullable String conflict(Policy policy) {
		if (policy.limitName() == null) {
			return null;
		}
		Policy first = this.firstOfName.putIfAbsent(policy.limitName(), policy);
		if (first != null && first.isInFlight() != policy.isInFlight()) {
			// One name is one item in the response fields: requests in progress or a rate, not both.
			return "limit '" + policy.limitName() + "' counts " + (first.isInFlight() ? "requests in flight" : "a rate")
					+ " in " + first.origin() + ", so it cannot count "
					+ (policy.isInFlight() ? "requests in flight" : "a rate") + " here";
		}
		if (first == null || (first.target() == policy.target() && Objects.equals(first.group(), policy.group()))) {
			return null;
		}
		return "limit '" + policy.limitName() + "' applies to " + describe(first) + " in " + first.origin()
				+ ", so it cannot apply to " + describe(policy) + " here";
	}

	private static String describe(Policy policy) {
		return switch (policy.target()) {
			case ENDPOINT -> "each endpoint";
			case API -> "the whole API";
			case GROUP -> "the group '" + policy.group() + "'";
		};
	}

	private static @Nullable String blankToNull(@Nullable String text) {
		return (text == null || text.isBlank()) ? null : text.strip();
	}

	private static Duration window(PolicyRow row) {
		return Duration.parse(Objects.requireNonNull(row.limitWindow()).strip());
	}

	private @Nullable String endpointProblem(PolicyRow row) {
		if (row.endpoint() == null || row.endpoint().isBlank()) {
			return "endpoint is missing";
		}
		EndpointTemplate endpoint;
		try {
			endpoint = EndpointTemplate.parse(row.endpoint());
		}
		catch (IllegalArgumentException ex) {
			return ex.getMessage();
		}
		if (!endpoint.isReserved() && !this.settings.knownEndpoints().test(endpoint)) {
			return "the application has no endpoint '" + endpoint + "'";
		}
		return null;
	}

	private static @Nullable String tenantProblem(@Nullable String tenant, EndpointTemplate endpoint) {
		if (tenant != null && tenant.isBlank()) {
			return "project_id must be NULL for a global policy or name a project, but was blank";
		}
		if (endpoint.isUnknown() && tenant != null) {
			return "UNKNOWN policies are global (unknown endpoints are limited by network identity alone), "
					+ "so project_id must be NULL";
		}
		return null;
	}

	private static @Nullable String planProblem(PolicyRow row, EndpointTemplate endpoint) {
		String plan = row.plan();
		if (plan == null) {
			return null;
		}
		if (plan.isBlank()) {
			return "plan must be NULL or name a plan, but was blank";
		}
		if (plan.length() > MAXIMUM_PLAN_LENGTH) {
			return "plan must be at most " + MAXIMUM_PLAN_LENGTH + " characters";
		}
		if (row.tenant() != null) {
			return "a row is for a tenant (project_id) or for a plan, not both: project_id '" + row.tenant()
					+ "' overrides its plan with a row of its own, without plan";
		}
		if (endpoint.isUnknown()) {
			return "UNKNOWN policies are global (unknown endpoints are limited by network identity alone), "
					+ "so plan must be NULL";
		}
		return null;
	}

	private @Nullable String problem(PolicyRow row, EndpointTemplate endpoint) {
		String layerProblem = layerProblem(row, endpoint);
		if (layerProblem != null) {
			return layerProblem;
		}
		if (LimitUnit.parse(row.counts()) == LimitUnit.IN_FLIGHT) {
			String inFlightProblem = inFlightProblem(row);
			if (inFlightProblem != null) {
				return inFlightProblem;
			}
		}
		else if (row.rpsLimit() != null
				&& (row.limitCount() != null || row.limitWindow() != null || row.burst() != null)) {
			return "a row states rps_limit or limit_count per limit_window (with burst), not both";
		}
		else {
			String rateProblem = (row.rpsLimit() != null) ? PolicySettings.rateProblem(row.rpsLimit())
					: countProblem(row);
			if (rateProblem != null) {
				return rateProblem;
			}
		}
		if (PolicyMode.parse(row.mode()) == null) {
			return "mode must be ENFORCE, SHADOW or OFF, but was '" + row.mode() + "'";
		}
		if (PolicyScope.parse(row.scope()) == null) {
			return "scope must be LOCAL, GLOBAL or GLOBAL_BATCHED, but was '" + row.scope() + "'";
		}
		return null;
	}

	private @Nullable String layerProblem(PolicyRow row, EndpointTemplate endpoint) {
		LimitTarget target = LimitTarget.parse(row.appliesTo());
		if (target == null) {
			return "applies_to must be ENDPOINT, GROUP or API, but was '" + row.appliesTo() + "'";
		}
		if (LimitUnit.parse(row.counts()) == null) {
			return "counts must be POINTS, REQUESTS or IN_FLIGHT, but was '" + row.counts() + "'";
		}
		String name = blankToNull(row.limitName());
		if (name == null) {
			if (target != LimitTarget.ENDPOINT || LimitUnit.parse(row.counts()) != LimitUnit.POINTS) {
				return "a limit that applies to a group or the API, or counts requests, needs a limit_name";
			}
		}
		else if (name.length() > MAXIMUM_NAME_LENGTH) {
			return "limit_name must be at most " + MAXIMUM_NAME_LENGTH + " characters";
		}
		else if (endpoint.isUnknown()) {
			return "UNKNOWN has one limit, its own: limit_name must be NULL";
		}
		String group = blankToNull(row.group());
		if (target == LimitTarget.GROUP) {
			if (group == null) {
				return "endpoint_group is missing for a GROUP limit";
			}
			if (!this.settings.groups().contains(group)) {
				return "no group of endpoints is named '" + group + "' (ratelimit.groups." + group + ")";
			}
		}
		else if (group != null) {
			return "endpoint_group must be NULL unless applies_to is GROUP";
		}
		if (target != LimitTarget.ENDPOINT && !endpoint.equals(EndpointTemplate.DEFAULT)) {
			return ((target == LimitTarget.API) ? "an API" : "a GROUP")
					+ " limit counts every endpoint it applies to in one bucket, so endpoint must be 'default'";
		}
		return null;
	}

	/**
	 * What is wrong with a row of requests in flight: it has a count and nothing of a rate.
	 */
	private static @Nullable String inFlightProblem(PolicyRow row) {
		if (row.rpsLimit() != null || row.limitWindow() != null || row.burst() != null) {
			return "an IN_FLIGHT limit is the most requests in progress at once, without a rate: "
					+ "rps_limit, limit_window and burst must be NULL";
		}
		if (row.limitCount() == null) {
			return "limit_count is missing: the most requests in progress at once";
		}
		if (row.limitCount() < 1) {
			return "limit_count must be positive, but was " + row.limitCount() + " (use mode OFF for no limit)";
		}
		if (row.limitCount() > MAXIMUM_IN_FLIGHT) {
			return "limit_count " + row.limitCount() + " is above the maximum of " + MAXIMUM_IN_FLIGHT
					+ " requests in flight";
		}
		if (PolicyScope.parse(row.scope()) == PolicyScope.GLOBAL_BATCHED) {
			return "an IN_FLIGHT limit is LOCAL or GLOBAL: permits are not leased in batches";
		}
		return null;
	}

	private static @Nullable String countProblem(PolicyRow row) {
		if (row.limitCount() == null && row.limitWindow() == null) {
			return "rps_limit is missing, and so are limit_count and limit_window";
		}
		if (row.limitCount() == null || row.limitWindow() == null) {
			return "limit_count and limit_window go together";
		}
		if (row.limitCount() < 1) {
			return "limit_count must be positive, but was " + row.limitCount() + " (use mode OFF for no limit)";
		}
		Duration window;
		try {
			window = window(row);
		}
		catch (DateTimeParseException ex) {
			return "limit_window must be an ISO-8601 duration such as PT1H, but was '" + row.limitWindow() + "'";
		}
		if (window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(MAXIMUM_WINDOW) > 0) {
			return "limit_window must be between PT1S and " + MAXIMUM_WINDOW
					+ " (longer periods are calendar quotas, not buckets), but was " + window;
		}
		if (row.burst() != null && row.burst() < 1) {
			return "burst must be positive, but was " + row.burst();
		}
		BigDecimal perSecond = BigDecimal.valueOf(row.limitCount())
			.divide(BigDecimal.valueOf(window.toMillis()).movePointLeft(3), 6, RoundingMode.HALF_UP);
		if (perSecond.compareTo(PolicySettings.MAXIMUM_RPS) > 0) {
			return "limit_count per limit_window is " + perSecond.stripTrailingZeros().toPlainString()
					+ " per second, above the maximum of " + PolicySettings.MAXIMUM_RPS.toPlainString();
		}
		long capacity = Objects.requireNonNullElse(row.burst(), row.limitCount());
		if (capacity > MAXIMUM_CAPACITY) {
			return ((row.burst() != null) ? "burst " : "limit_count ") + capacity + " is above the maximum of "
					+ MAXIMUM_CAPACITY + " in one bucket";
		}
		return null;
	}

	/**
	 * What validating the columns of a row but its id and tenant came to: a problem with the
	 * endpoint, which is reported before any problem with the tenant; the endpoint and a
	 * problem with the other columns; or the endpoint and the policy terms.
	 */
	private record Outcome(RowTerms row, @Nullable EndpointTemplate endpoint, @Nullable String endpointProblem,
			@Nullable String problem, @Nullable PolicyTerms terms) {
	}

}
