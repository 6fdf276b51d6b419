package io.ratelimit.core;

import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

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
 * A request charged to several buckets (a sensitive endpoint, or layered limits) lists one
 * item per bucket in both fields, and {@code Retry-After} is the longest wait among the
 * buckets that refused it. Only enforced policies produce fields: shadow and disabled
 * policies stay invisible to clients. Rejection is this value, never an exception.
 */
public final class Decision {

	/** The header naming the quota policy. */
	public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

	/** The header with the remaining quota. */
	public static final String RATE_LIMIT = "RateLimit";

	/** The header telling a rejected client when to retry. */
	public static final String RETRY_AFTER = "Retry-After";

	private final Outcome outcome;

	private final EndpointTemplate endpoint;

	private final Policy policy;

	private final List<Quota> quotas;

	/* An int, capped: with the flag below the object stays at 48 bytes. */
	private final int retryAfterSeconds;

	private final long legacyResetEpochSeconds;

	private final @Nullable LoginAttempt attempt;

	/*
	 * For a request charged to layered limits, the name of the limit the problem body names
	 * (the refusing one with the longest wait, else the endpoint's own); null otherwise,
	 * which also says that the quotas are the policy's alone. Every admitted request makes
	 * a decision: one field and an int wait keep it within 48 bytes, as before.
	 */
	private final @Nullable String layeredName;

	private Decision(Outcome outcome, EndpointTemplate endpoint, Policy policy, List<Quota> quotas,
			long legacyNowMillis) {
		this(outcome, endpoint, policy, quotas, legacyNowMillis, null, null);
	}

	private Decision(Outcome outcome, EndpointTemplate endpoint, Policy policy, List<Quota> quotas,
			long legacyNowMillis, @Nullable LoginAttempt attempt, @Nullable String layeredName) {
		this.attempt = attempt;
		this.layeredName = layeredName;
		this.outcome = outcome;
		this.endpoint = endpoint;
		this.policy = policy;
		this.quotas = quotas;
		long retryAfter = 0;
		// An admitted request has no refused quota: its quotas are not even looked at, so
		// that a layered charge's are never made unless its fields are written.
		for (int i = 0; outcome != Outcome.ALLOWED && i < quotas.size(); i++) {
			Quota quota = quotas.get(i);
			if (quota.refused()) {
				retryAfter = Math.max(retryAfter, quota.resetSeconds());
			}
		}
		this.retryAfterSeconds = (int) Math.min(Integer.MAX_VALUE, retryAfter);
		this.legacyResetEpochSeconds = (legacyNowMillis < 0 || quotas.isEmpty()) ? -1
				: ceilDiv(legacyNowMillis, 1000) + binding().resetSeconds();
	}

	/**
	 * Returns the decision for a request that no limit applies to (policy mode off).
	 * @param endpoint the endpoint charged
	 * @param policy the policy that switched limiting off
	 * @return an allowed decision without fields
	 */
	static Decision unlimited(EndpointTemplate endpoint, Policy policy) {
		return new Decision(Outcome.ALLOWED, endpoint, policy, List.of(), -1);
	}

	/**
	 * Returns the decision for a request to no endpoint of the application, refused before
	 * any identity or bucket work.
	 * @param policy the UNKNOWN policy, for reference
	 * @return a decision without fields
	 */
	static Decision unknownEndpoint(Policy policy) {
		return new Decision(Outcome.UNKNOWN_ENDPOINT, EndpointTemplate.UNKNOWN, policy, List.of(), -1);
	}

	/**
	 * Returns the decision for the buckets a request was charged to.
	 * @param endpoint the endpoint charged
	 * @param policy the policy applied
	 * @param quotas one quota per bucket, all admitting or at least one refusing
	 * @param legacyNowMillis the wall-clock time for {@code X-RateLimit-Reset}, or a
	 * negative value to leave the legacy fields out
	 * @return the decision
	 */
	static Decision of(EndpointTemplate endpoint, Policy policy, List<Quota> quotas, long legacyNowMillis) {
		return of(endpoint, policy, quotas, legacyNowMillis, null);
	}

	/**
	 * Returns the decision for the buckets a login attempt was charged to.
	 * @param attempt the attempt, kept only if every bucket admitted it (a refused attempt
	 * never reaches the application, so it has no outcome to tell)
	 * @see #of(EndpointTemplate, Policy, List, long)
	 */
	static Decision of(EndpointTemplate endpoint, Policy policy, List<Quota> quotas, long legacyNowMillis,
			@Nullable LoginAttempt attempt) {
		boolean refused = false;
		for (Quota quota : quotas) {
			refused |= quota.refused();
		}
		Outcome outcome = !refused ? Outcome.ALLOWED
				: (policy.mode() == PolicyMode.ENFORCE) ? Outcome.REJECTED : Outcome.SHADOW_REJECTED;
		return new Decision(outcome, endpoint, policy, List.copyOf(quotas), legacyNowMillis,
				refused ? null : attempt, null);
	}

	/**
	 * Returns the decision for a request charged to layered limits, all or nothing.
	 * @param outcome the outcome, decided by the charge
	 * @param endpoint the endpoint charged
	 * @param policy the endpoint's own policy
	 * @param enforcedQuotas one quota per enforced limit charged, in the order of the
	 * fields; limits in shadow mode are left out, as their fields would be
	 * @param legacyNowMillis the wall-clock time for {@code X-RateLimit-Reset}, or a
	 * negative value to leave the legacy fields out
	 * @param attempt the admitted login attempt the request is, or {@code null}
	 * @param limitName the name of the limit the problem body names: the refusing one with
	 * the longest wait, else the endpoint's own
	 * @return the decision
	 */
	static Decision layered(Outcome outcome, EndpointTemplate endpoint, Policy policy, ChargedQuotas enforcedQuotas,
			long legacyNowMillis, @Nullable LoginAttempt attempt, String limitName) {
		return new Decision(outcome, endpoint, policy, enforcedQuotas, legacyNowMillis, attempt, limitName);
	}

	/**
	 * Returns the attempt on a sensitive endpoint that this decision admitted, whose
	 * outcome the web integration reports once the application has answered.
	 * @return the attempt, or {@code null} if the request is no admitted login attempt
	 */
	public @Nullable LoginAttempt attempt() {
		return this.attempt;
	}

	/**
	 * Returns the permits an admitted request holds under its in-flight limits, which the
	 * web integration releases once the response completes (whatever way it ends).
	 * @return the permits, or {@code null} if the request holds none: no in-flight limit
	 * applies, or it was rejected (a rejected request gives its permits back at once)
	 */
	public @Nullable HeldPermits permits() {
		return (this.outcome != Outcome.REJECTED && this.quotas instanceof ChargedQuotas charged) ? charged.permits()
				: null;
	}

	/**
	 * Returns what happens to the request.
	 * @return the outcome
	 */
	public Outcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns the name of the limit the problem body of a 429 names: for a request charged
	 * to layered limits, the refusing one with the longest wait; otherwise, and when the
	 * endpoint's own buckets refuse (a login's account bucket included), the policy's.
	 * @return the limit name
	 */
	public String limitName() {
		return (this.layeredName != null) ? this.layeredName : this.policy.name();
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
	 * Returns the buckets the request was charged to.
	 * @return one quota per bucket, empty when no limit applies; with layered limits, one
	 * per enforced limit
	 */
	public List<Quota> quotas() {
		return this.quotas;
	}

	/**
	 * Returns the whole tokens left in the tightest bucket, the {@code r} of
	 * {@code RateLimit}.
	 * @return the remaining quota, 0 when no limit applies
	 */
	public long remaining() {
		return this.quotas.isEmpty() ? 0 : binding().remaining();
	}

	/**
	 * Returns the seconds until the tightest bucket's remaining quota grows, the {@code t}
	 * of {@code RateLimit}: the retry delay when rejected.
	 * @return the reset in seconds
	 */
	public long resetSeconds() {
		return this.quotas.isEmpty() ? 0 : binding().resetSeconds();
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
		return !this.quotas.isEmpty() && (this.layeredName != null || this.policy.mode() == PolicyMode.ENFORCE);
	}

	/**
	 * Returns the {@code RateLimit-Policy} field value.
	 * @return the value, e.g. {@code "default";q=20;w=2}, or {@code null} without fields
	 */
	public @Nullable String rateLimitPolicy() {
		if (!hasHeaders()) {
			return null;
		}
		if (this.quotas instanceof ChargedQuotas charged) {
			return charged.policyField();
		}
		// Most requests have one quota, the policy's own: its item is built once, by the policy.
		if (this.quotas.size() == 1) {
			Quota quota = this.quotas.get(0);
			return isPolicysOwn(quota) ? this.policy.policyItem() : quota.policyItem();
		}
		return this.quotas.stream().map(Quota::policyItem).collect(Collectors.joining(", "));
	}

	/**
	 * Returns the {@code RateLimit} field value.
	 * @return the value, e.g. {@code "default";r=19;t=1}, or {@code null} without fields
	 */
	public @Nullable String rateLimit() {
		if (!hasHeaders()) {
			return null;
		}
		if (this.quotas instanceof ChargedQuotas charged) {
			return charged.rateLimitField();
		}
		if (this.quotas.size() == 1) {
			Quota quota = this.quotas.get(0);
			return isPolicysOwn(quota) ? quota.rateLimitItem(this.policy.quotedName()) : quota.rateLimitItem();
		}
		return this.quotas.stream().map(Quota::rateLimitItem).collect(Collectors.joining(", "));
	}

	/**
	 * Whether a quota is of a bucket named and shaped as the policy itself (not an
	 * identifier's bucket, nor one raised to a request's weight).
	 */
	private boolean isPolicysOwn(Quota quota) {
		return quota.limits() == this.policy.limits() && quota.name().equals(this.policy.name());
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
	 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (epoch seconds, of the
	 * tightest bucket) when the limiter is configured to send them.
	 * @param header receives each field name and value
	 */
	public void forEachHeader(BiConsumer<String, String> header) {
		if (!hasHeaders()) {
			return;
		}
		header.accept(RATE_LIMIT_POLICY, Objects.requireNonNull(rateLimitPolicy()));
		header.accept(RATE_LIMIT, Objects.requireNonNull(rateLimit()));
		if (isRejected()) {
			header.accept(RETRY_AFTER, Long.toString(this.retryAfterSeconds));
		}
		if (this.legacyResetEpochSeconds >= 0) {
			Quota binding = binding();
			header.accept("X-RateLimit-Limit", Long.toString(binding.limits().quota()));
			header.accept("X-RateLimit-Remaining", Long.toString(binding.remaining()));
			header.accept("X-RateLimit-Reset", Long.toString(this.legacyResetEpochSeconds));
		}
	}

	/**
	 * The quota that decides: the one that refused with the longest wait, else the one with
	 * the least left.
	 */
	private Quota binding() {
		Quota binding = this.quotas.get(0);
		for (Quota quota : this.quotas) {
			boolean tighter = quota.refused() ? (!binding.refused() || quota.resetSeconds() > binding.resetSeconds())
					: (!binding.refused() && quota.remaining() < binding.remaining());
			if (tighter) {
				binding = quota;
			}
		}
		return binding;
	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

	@Override
	public String toString() {
		return "Decision[" + this.outcome + ", endpoint=" + this.endpoint + ", policy=" + this.policy.name() + " ("
				+ this.policy.origin() + "), quotas=" + this.quotas.size() + ", remaining=" + remaining() + "]";
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
