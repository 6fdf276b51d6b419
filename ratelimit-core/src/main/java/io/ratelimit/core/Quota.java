package io.ratelimit.core;

import java.util.Objects;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.policy.Policy;

/**
 * One bucket's part in a {@link Decision}: what the {@code RateLimit} and
 * {@code RateLimit-Policy} fields say about it. Most requests have one quota; a sensitive
 * endpoint has two, the client's and the submitted identifier's.
 *
 * @param name the policy name in the fields
 * @param limits the bucket shape
 * @param remaining the whole tokens left, {@code r}
 * @param resetSeconds seconds until {@code r} grows, {@code t}; the retry delay if refused
 * @param refused whether this bucket refused the request
 */
public record Quota(String name, BucketLimits limits, long remaining, long resetSeconds, boolean refused) {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	public Quota {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(limits, "limits must not be null");
	}

	/**
	 * Returns the quota of a bucket after a consumption.
	 * @param name the policy name in the fields
	 * @param limits the bucket shape
	 * @param consumption what the bucket said
	 * @return the quota
	 */
	public static Quota of(String name, BucketLimits limits, Consumption consumption) {
		if (!consumption.consumed()) {
			long wait = Math.max(1, ceilDiv(consumption.nanosToWait(), NANOS_PER_SECOND));
			return new Quota(name, limits, consumption.remainingTokens(), wait, true);
		}
		long reset = ceilDiv(limits.nanosUntilNextToken(consumption.remainingUnits()), NANOS_PER_SECOND);
		return new Quota(name, limits, consumption.remainingTokens(), reset, false);
	}

	/**
	 * Returns the quota of a limit of requests in flight.
	 * @param policy the in-flight limit
	 * @param remaining the permits left
	 * @param refused whether the limit had none for the request
	 * @return the quota: {@code t} is 0 while a permit is left, else 1, the short wait a
	 * refusal asks for (a permit comes back when some request of the caller completes)
	 */
	static Quota inFlight(Policy policy, long remaining, boolean refused) {
		return new Quota(policy.name(), policy.limits(), remaining, (refused || remaining == 0) ? 1 : 0, refused);
	}

	/**
	 * Returns the {@code RateLimit-Policy} item of this quota.
	 * @return e.g. {@code "default";q=20;w=2}
	 */
	public String policyItem() {
		return policyItem(quoted(this.name), this.limits);
	}

	/**
	 * Returns the {@code RateLimit} item of this quota.
	 * @return e.g. {@code "default";r=19;t=1}
	 */
	public String rateLimitItem() {
		return rateLimitItem(quoted(this.name));
	}

	/**
	 * Returns the {@code RateLimit} item of this quota under a name already quoted, so that
	 * the only string built per request is the item itself.
	 * @param quotedName the name as {@link #quoted(String)} returns it
	 * @return e.g. {@code "default";r=19;t=1}
	 */
	String rateLimitItem(String quotedName) {
		return quotedName + ";r=" + this.remaining + ";t=" + this.resetSeconds;
	}

	/**
	 * Appends the {@code RateLimit} item of this quota to a field of several items, as
	 * {@link #rateLimitItem(String)} writes it.
	 * @param field the field so far
	 * @param quotedName the name as {@link #quoted(String)} returns it
	 */
	void appendRateLimitItem(StringBuilder field, String quotedName) {
		field.append(quotedName).append(";r=").append(this.remaining).append(";t=").append(this.resetSeconds);
	}

	/**
	 * Returns the {@code RateLimit-Policy} item of a bucket.
	 * @param quotedName the name as {@link #quoted(String)} returns it
	 * @param limits the bucket shape
	 * @return e.g. {@code "default";q=20;w=2}
	 */
	public static String policyItem(String quotedName, BucketLimits limits) {
		return quotedName + ";q=" + limits.quota() + ";w=" + limits.windowSeconds();
	}

	/**
	 * Returns the {@code RateLimit-Policy} item of a limit of requests in flight: the quota
	 * unit {@code concurrent-requests} of the draft's quota-unit registry, and no window,
	 * since the quota is not spent over time but held while a request is in progress.
	 * @param quotedName the name as {@link #quoted(String)} returns it
	 * @param limit the most requests in progress at once
	 * @return e.g. {@code "in-flight";q=10;qu="concurrent-requests"}
	 */
	public static String inFlightPolicyItem(String quotedName, long limit) {
		return quotedName + ";q=" + limit + ";qu=\"concurrent-requests\"";
	}

	/**
	 * Returns a policy name as an RFC 9651 sf-string.
	 * @param name the name
	 * @return the name in double quotes, with quotes and backslashes escaped and characters
	 * outside printable ASCII replaced by {@code ?}
	 */
	public static String quoted(String name) {
		// Policy names are almost always plain: one concatenation, no builder.
		if (isPlain(name)) {
			return '"' + name + '"';
		}
		StringBuilder quoted = new StringBuilder(name.length() + 2).append('"');
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\');
			}
			quoted.append((c >= 0x20 && c < 0x7f) ? c : '?');
		}
		return quoted.append('"').toString();
	}

	private static boolean isPlain(String name) {
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
				return false;
			}
		}
		return true;
	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

}
