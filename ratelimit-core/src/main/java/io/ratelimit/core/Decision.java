package io.ratelimit.core;

import java.util.Objects;
import java.util.function.BiConsumer;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyMode;
import org.jspecify.annotations.Nullable;

/**
 * The answer of the limiter for one request, and the response fields that go with it
 * (IETF draft-ietf-httpapi-ratelimit-headers-10):
 * <pre>
 * RateLimit-Policy: "&lt;policy&gt;";q=&lt;capacity&gt;;w=&lt;ceil(capacity / rps)&gt;
 * RateLimit: "&lt;policy&gt;";r=&lt;whole tokens left&gt;;t=&lt;seconds until r grows, 0 if full&gt;
 * Retry-After: &lt;seconds until the request would pass&gt;   (rejected only)
 * </pre>
 * Only enforced policies produce fields: shadow and disabled policies stay invisible to
 * clients. Rejection is this value, never an exception.
 */
public final class Decision {

	/** The header naming the quota policy. */
	public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

	/** The header with the remaining quota. */
	public static final String RATE_LIMIT = "RateLimit";

	/** The header telling a rejected client when to retry. */
	public static final String RETRY_AFTER = "Retry-After";

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	private final Outcome outcome;

	private final EndpointTemplate endpoint;

	private final Policy policy;

	private final @Nullable BucketLimits limits;

	private final long remaining;

	private final long resetSeconds;

	private final long retryAfterSeconds;

	private final long legacyResetEpochSeconds;

	private Decision(Outcome outcome, EndpointTemplate endpoint, Policy policy, @Nullable BucketLimits limits,
			long remaining, long resetSeconds, long retryAfterSeconds, long legacyResetEpochSeconds) {
		this.outcome = outcome;
		this.endpoint = endpoint;
		this.policy = policy;
		this.limits = limits;
		this.remaining = remaining;
		this.resetSeconds = resetSeconds;
		this.retryAfterSeconds = retryAfterSeconds;
		this.legacyResetEpochSeconds = legacyResetEpochSeconds;
	}

	/**
	 * Returns the decision for a request that no limit applies to (policy mode off).
	 * @param endpoint the endpoint charged
	 * @param policy the policy that switched limiting off
	 * @return an allowed decision without fields
	 */
	static Decision unlimited(EndpointTemplate endpoint, Policy policy) {
		return new Decision(Outcome.ALLOWED, endpoint, policy, null, 0, 0, 0, -1);
	}

	/**
	 * Returns the decision for a request to no endpoint of the application, refused before
	 * any identity or bucket work.
	 * @param policy the UNKNOWN policy, for reference
	 * @return a decision without fields
	 */
	static Decision unknownEndpoint(Policy policy) {
		return new Decision(Outcome.UNKNOWN_ENDPOINT, EndpointTemplate.UNKNOWN, policy, null, 0, 0, 0, -1);
	}

	/**
	 * Returns the decision for a bucket consumption.
	 * @param endpoint the endpoint charged
	 * @param policy the policy applied
	 * @param limits the bucket shape consumed from
	 * @param consumption what the bucket said
	 * @param legacyNowMillis the wall-clock time for {@code X-RateLimit-Reset}, or a
	 * negative value to leave the legacy fields out
	 * @return the decision
	 */
	static Decision of(EndpointTemplate endpoint, Policy policy, BucketLimits limits, Consumption consumption,
			long legacyNowMillis) {
		Outcome outcome = consumption.consumed() ? Outcome.ALLOWED
				: (policy.mode() == PolicyMode.ENFORCE) ? Outcome.REJECTED : Outcome.SHADOW_REJECTED;
		long retryAfter = consumption.consumed() ? 0
				: Math.max(1, ceilDiv(consumption.nanosToWait(), NANOS_PER_SECOND));
		long reset = consumption.consumed()
				? ceilDiv(limits.nanosUntilNextToken(consumption.remainingUnits()), NANOS_PER_SECOND) : retryAfter;
		long legacyReset = (legacyNowMillis < 0) ? -1 : ceilDiv(legacyNowMillis, 1000) + reset;
		return new Decision(outcome, endpoint, policy, limits, consumption.remainingTokens(), reset, retryAfter,
				legacyReset);
	}

	/**
	 * Returns what happens to the request.
	 * @return the outcome
	 */
	public Outcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns whether the request must be answered with 429. Shadow rejections pass.
	 * @return whether the request is rejected
	 */
	public boolean isRejected() {
		return this.outcome == Outcome.REJECTED;
	}

	/**
	 * Returns the endpoint the request was charged to.
	 * @return the endpoint template
	 */
	public EndpointTemplate endpoint() {
		return this.endpoint;
	}

	/**
	 * Returns the policy applied.
	 * @return the policy
	 */
	public Policy policy() {
		return this.policy;
	}

	/**
	 * Returns the whole tokens left in the bucket, the {@code r} of {@code RateLimit}.
	 * @return the remaining quota, 0 when no limit applies
	 */
	public long remaining() {
		return this.remaining;
	}

	/**
	 * Returns the seconds until the remaining quota grows, the {@code t} of
	 * {@code RateLimit}: 0 when the bucket is full, the retry delay when rejected.
	 * @return the reset in seconds
	 */
	public long resetSeconds() {
		return this.resetSeconds;
	}

	/**
	 * Returns the seconds after which the rejected request would pass.
	 * @return the delay in whole seconds, at least 1 when rejected, 0 otherwise
	 */
	public long retryAfterSeconds() {
		return this.retryAfterSeconds;
	}

	/**
	 * Returns whether the response carries rate-limit fields: only under an enforced policy.
	 * @return whether there are fields to write
	 */
	public boolean hasHeaders() {
		return this.limits != null && this.policy.mode() == PolicyMode.ENFORCE;
	}

	/**
	 * Returns the {@code RateLimit-Policy} field value.
	 * @return the value, e.g. {@code "default";q=20;w=2}, or {@code null} without fields
	 */
	public @Nullable String rateLimitPolicy() {
		BucketLimits limits = this.limits;
		if (limits == null || !hasHeaders()) {
			return null;
		}
		return policyName() + ";q=" + limits.quota() + ";w=" + limits.windowSeconds();
	}

	/**
	 * Returns the {@code RateLimit} field value.
	 * @return the value, e.g. {@code "default";r=19;t=1}, or {@code null} without fields
	 */
	public @Nullable String rateLimit() {
		if (!hasHeaders()) {
			return null;
		}
		return policyName() + ";r=" + this.remaining + ";t=" + this.resetSeconds;
	}

	/**
	 * Returns the {@code Retry-After} field value, in delay-seconds.
	 * @return the value, or {@code null} unless the request is rejected
	 */
	public @Nullable String retryAfter() {
		return isRejected() ? Long.toString(this.retryAfterSeconds) : null;
	}

	/**
	 * Writes every response field of this decision: {@code RateLimit-Policy},
	 * {@code RateLimit}, {@code Retry-After} when rejected, and the legacy
	 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds) when
	 * the limiter is configured to send them.
	 * @param header receives each field name and value
	 */
	public void forEachHeader(BiConsumer<String, String> header) {
		BucketLimits limits = this.limits;
		if (limits == null || !hasHeaders()) {
			return;
		}
		header.accept(RATE_LIMIT_POLICY, Objects.requireNonNull(rateLimitPolicy()));
		header.accept(RATE_LIMIT, Objects.requireNonNull(rateLimit()));
		if (isRejected()) {
			header.accept(RETRY_AFTER, Long.toString(this.retryAfterSeconds));
		}
		if (this.legacyResetEpochSeconds >= 0) {
			header.accept("X-RateLimit-Limit", Long.toString(limits.quota()));
			header.accept("X-RateLimit-Remaining", Long.toString(this.remaining));
			header.accept("X-RateLimit-Reset", Long.toString(this.legacyResetEpochSeconds));
		}
	}

	/**
	 * The policy name as an RFC 9651 sf-string.
	 */
	private String policyName() {
		String name = this.policy.name();
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

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

	@Override
	public String toString() {
		return "Decision[" + this.outcome + ", endpoint=" + this.endpoint + ", policy=" + this.policy.name() + " ("
				+ this.policy.origin() + "), remaining=" + this.remaining + ", reset=" + this.resetSeconds + "s]";
	}

	/**
	 * What happens to a request.
	 */
	public enum Outcome {

		/** The request passes: within its limit, or no limit applies. */
		ALLOWED,

		/** The request is over an enforced limit and gets 429. */
		REJECTED,

		/** The request is over a shadow limit: it passes, and is counted as if rejected. */
		SHADOW_REJECTED,

		/**
		 * The application has no endpoint for the request, and unknown endpoints are refused
		 * outright (answered 404), without touching a bucket.
		 */
		UNKNOWN_ENDPOINT

	}

}
