package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Turns policy rows into policies, rejecting each bad row with the reason. A bad row never
 * stops the others, and duplicates resolve to the strictest row, so a mistake in the table
 * can make a limit tighter but never looser.
 */
final class PolicyRowValidator {

	/** Orders duplicates: enforcing before shadow before off, then the lower rate. */
	private static final Comparator<Policy> STRICTEST_FIRST = Comparator.comparing(Policy::mode)
		.thenComparing(Policy::rps);

	private final PolicySettings settings;

	private final List<Policy> accepted = new ArrayList<>();

	private final List<RejectedRow> rejected = new ArrayList<>();

	private final Map<PolicyKey, Accepted> byKey = new LinkedHashMap<>();

	PolicyRowValidator(PolicySettings settings) {
		this.settings = settings;
	}

	PolicyRowValidator validate(List<PolicyRow> rows) {
		for (PolicyRow row : rows) {
			validate(row);
		}
		this.byKey.values().stream().map(Accepted::policy).forEach(this.accepted::add);
		return this;
	}

	List<Policy> accepted() {
		return this.accepted;
	}

	List<RejectedRow> rejected() {
		return this.rejected;
	}

	private void validate(PolicyRow row) {
		String problem = problem(row);
		if (problem != null) {
			this.rejected.add(new RejectedRow(row, problem));
			return;
		}
		EndpointTemplate endpoint = EndpointTemplate.parse(row.endpoint());
		BigDecimal rps = Objects.requireNonNull(row.rpsLimit());
		PolicyMode mode = Objects.requireNonNull(PolicyMode.parse(row.mode()));
		PolicyScope scope = Objects.requireNonNull(PolicyScope.parse(row.scope()));
		Policy policy = new Policy(endpoint, row.tenant(), rps, mode, scope,
				BucketLimits.of(rps, this.settings.burstFactor(), 1), "row " + row.id());
		keepStricter(new Accepted(row, policy));
	}

	private @Nullable String problem(PolicyRow row) {
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
		if (row.tenant() != null && row.tenant().isBlank()) {
			return "project_id must be NULL for a global policy or name a project, but was blank";
		}
		if (endpoint.isUnknown() && row.tenant() != null) {
			return "UNKNOWN policies are global (unknown endpoints are limited by network identity alone), "
					+ "so project_id must be NULL";
		}
		if (row.rpsLimit() == null) {
			return "rps_limit is missing";
		}
		String rateProblem = PolicySettings.rateProblem(row.rpsLimit());
		if (rateProblem != null) {
			return rateProblem;
		}
		if (PolicyMode.parse(row.mode()) == null) {
			return "mode must be ENFORCE, SHADOW or OFF, but was '" + row.mode() + "'";
		}
		if (PolicyScope.parse(row.scope()) == null) {
			return "scope must be LOCAL, GLOBAL or GLOBAL_BATCHED, but was '" + row.scope() + "'";
		}
		return null;
	}

	private void keepStricter(Accepted candidate) {
		PolicyKey key = new PolicyKey(candidate.policy().endpoint(), candidate.policy().tenant());
		Accepted existing = this.byKey.get(key);
		if (existing == null) {
			this.byKey.put(key, candidate);
			return;
		}
		Accepted stricter = (STRICTEST_FIRST.compare(candidate.policy(), existing.policy()) < 0) ? candidate : existing;
		Accepted looser = (stricter == candidate) ? existing : candidate;
		this.byKey.put(key, stricter);
		this.rejected.add(new RejectedRow(looser.row(), "duplicate of row " + stricter.row().id()
				+ " for the same endpoint and project_id; the stricter row " + stricter.row().id() + " applies"));
	}

	private record Accepted(PolicyRow row, Policy policy) {
	}

	record PolicyKey(EndpointTemplate endpoint, @Nullable String tenant) {
	}

}
