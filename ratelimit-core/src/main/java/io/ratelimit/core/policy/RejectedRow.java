package io.ratelimit.core.policy;

/**
 * A policy row that did not become a policy, and why. Rejected rows are reported and
 * skipped; they never stop the other rows from loading.
 *
 * @param row the row as stored
 * @param reason what is wrong with it, in words an operator can act on
 */
public record RejectedRow(PolicyRow row, String reason) {

	@Override
	public String toString() {
		return "row " + this.row.id() + " (" + this.row.endpoint() + ", project_id=" + this.row.tenant()
				+ ((this.row.plan() != null) ? ", plan=" + this.row.plan() : "")
				+ ((this.row.limitName() != null) ? ", limit_name=" + this.row.limitName() : "") + "): " + this.reason;
	}

}
