package io.ratelimit.core.policy;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Of the policies of one endpoint, tenant or plan, and limit name, keeps the strictest and rejects
 * the others, so that a mistake in the table can make a limit tighter but never looser.
 * Policies are kept in the order their first rows came.
 */
final class StrictestRows {

	/** Orders duplicates: enforcing before shadow before off, then the lower rate. */
	private static final Comparator<Policy> STRICTEST_FIRST = Comparator.comparing(Policy::mode)
		.thenComparing(Policy::rps);

	private final Map<PolicyKey, Accepted> byKey;

	private final List<RejectedRow> rejected;

	/**
	 * Creates an empty set.
	 * @param expectedRows about how many rows will come, so that a table of a million rows
	 * is not indexed through twenty resizes of a growing map
	 * @param rejected where the rejected rows go
	 */
	StrictestRows(int expectedRows, List<RejectedRow> rejected) {
		this.byKey = new LinkedHashMap<>((int) Math.min(Integer.MAX_VALUE / 2, expectedRows / 0.75 + 1));
		this.rejected = rejected;
	}

	List<Policy> policies() {
		return this.byKey.values().stream().map(Accepted::policy).toList();
	}

	/**
	 * Adds an accepted row; a stricter or looser row of the same endpoint, tenant and limit
	 * name is rejected.
	 */
	void add(RowTerms terms, Policy policy) {
		Accepted candidate = new Accepted(terms, policy);
		PolicyKey key = new PolicyKey(policy.endpoint(), policy.tenant(), policy.plan(), policy.limitName());
		Accepted existing = this.byKey.get(key);
		if (existing == null) {
			this.byKey.put(key, candidate);
			return;
		}
		Accepted stricter = (STRICTEST_FIRST.compare(candidate.policy(), existing.policy()) < 0) ? candidate : existing;
		Accepted looser = (stricter == candidate) ? existing : candidate;
		this.byKey.put(key, stricter);
		String owner = (key.plan() != null) ? "plan" : "project_id";
		this.rejected.add(new RejectedRow(looser.row(), "duplicate of row " + stricter.id()
				+ ((key.limitName() == null) ? " for the same endpoint and " + owner
						: " for the same endpoint, " + owner + " and limit_name")
				+ "; the stricter row " + stricter.id() + " applies"));
	}

	/**
	 * An accepted row: its policy, and its columns but for id and tenant, which the policy
	 * holds. Kept until all rows are in, since a later duplicate may reject it.
	 */
	private record Accepted(RowTerms terms, Policy policy) {

		String id() {
			return this.policy.origin().substring("row ".length());
		}

		PolicyRow row() {
			return this.terms.toRow(id(), this.policy.tenant(), this.policy.plan());
		}

	}

	record PolicyKey(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan,
			@Nullable String limitName) {
	}

}
