package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;
import io.ratelimit.client.RateLimitFields;

/**
 * Paces by what the server says. Every caller of a shared quota reads the same remaining
 * count in the {@code RateLimit} fields, so each one sets its own rate from it: the policy's
 * sustained rate ({@code q / w}) times the cube of the remaining count over a reserve of a
 * fifth of the quota. With plenty left a caller goes at once; as the count falls, every
 * caller slows down together, without hearing of the others, and the count settles where
 * their rates add up to the policy's ({@code n} callers: at {@code n^(-1/3)} of the reserve),
 * above zero, so that requests sent on older news still find quota. A refusal is answered by
 * waiting out {@code Retry-After} plus a jitter that doubles with each refusal in a row (up
 * to 16 s), and by quartering the rate until the next success. A server that sends no
 * fields gets the adaptive token bucket.
 *
 * <p>The constants come from the emulation of {@code docs/client.md}: a floor of 1/64 of
 * the policy's rate and the cube keep 5 busy clients at zero refusals and 100 light ones at
 * 96-97 % fewer than exponential backoff, within 5 % of its total duration; a lower floor
 * or a cut without floor stalled clients (up to +48 % duration), a gentler cut doubled the
 * refusals of the 100 clients.
 */
final class HeaderAwarePacing implements Pacing {

	private static final double NANOS_PER_SECOND = 1e9;

	/** The remaining count steered to, as a share of the quota. */
	private static final double RESERVE_SHARE = 0.2;

	/** How sharply the rate falls with the remaining count. */
	private static final double STEEPNESS = 3;

	/** The lowest rate after a success, as a share of the policy's: a probe every 48 s at 80/min. */
	private static final double FLOOR_SHARE = 1.0 / 64;

	/** The lowest rate after a refusal, as a share of the policy's. */
	private static final double REFUSED_FLOOR_SHARE = 1.0 / 128;

	/** The cut of the rate on a refusal. */
	private static final double REFUSAL_DIVISOR = 4;

	/** The largest jitter added to {@code Retry-After}, in seconds. */
	private static final double MAXIMUM_SPREAD_SECONDS = 16;

	private final AdaptiveTokenBucket uninformed;

	private final RandomGenerator random;

	private final LocalTokens paced;

	private boolean informed;

	private double policyRate;

	private double reserve = 1;

	private double floorRate;

	/** After a refusal, the rate stays cut until the next success. */
	private double refusedCeiling = Double.MAX_VALUE;

	/** The remaining count the server will report next, as far as this caller knows. */
	private long remaining;

	private long inFlight;

	private int refusalsInRow;

	private boolean holding;

	private long notBefore;

	HeaderAwarePacing(AdaptiveSettings fallback, RandomGenerator random, long nowNanos) {
		this.uninformed = new AdaptiveTokenBucket(fallback, random, nowNanos);
		this.random = random;
		this.paced = new LocalTokens(fallback.initialRate(), 1, 1, nowNanos);
	}

	@Override
	public long tryAcquire(long nowNanos) {
		if (this.holding && nowNanos - this.notBefore < 0) {
			return this.notBefore - nowNanos;
		}
		this.holding = false;
		if (!this.informed) {
			return this.uninformed.tryAcquire(nowNanos);
		}
		// The count the server will see: what it reported, less what was sent since.
		this.paced.rate(nowNanos, rateFor(this.remaining));
		long wait = this.paced.tryTake(nowNanos);
		if (wait == 0) {
			this.remaining = Math.max(0, this.remaining - 1);
			this.inFlight++;
		}
		return wait;
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		if (!feedback.hasResponse()) {
			// An I/O error says nothing about the quota; the request may or may not have counted.
			this.inFlight = Math.max(0, this.inFlight - 1);
			return;
		}
		this.inFlight = Math.max(0, this.inFlight - 1);
		RateLimitFields fields = feedback.fields();
		if (fields == null || fields.ratePerSecond() <= 0) {
			this.informed = false;
			if (feedback.isRefused() && feedback.retryAfterMillis() >= 0) {
				holdFor(nowNanos, feedback.retryAfterMillis() / 1000.0);
			}
			this.uninformed.onFeedback(nowNanos, feedback);
			return;
		}
		this.informed = true;
		double policyRate = fields.ratePerSecond();
		this.policyRate = policyRate;
		this.reserve = Math.max(1, fields.quota() * RESERVE_SHARE);
		// Small quotas refill whole in fewer than 64 intervals: never wait longer than that.
		this.floorRate = policyRate / Math.min(1 / FLOOR_SHARE, Math.max(1, fields.quota()));
		// Requests sent after this one's are not counted in its fields yet.
		this.remaining = Math.max(0, fields.remaining() - this.inFlight);
		if (feedback.isRefused()) {
			this.refusalsInRow++;
			double waitSeconds = (feedback.retryAfterMillis() >= 0) ? feedback.retryAfterMillis() / 1000.0
					: fields.resetSeconds();
			double spread = Math.min(MAXIMUM_SPREAD_SECONDS, (1L << Math.min(this.refusalsInRow, 20)) / policyRate);
			holdFor(nowNanos, waitSeconds + this.random.nextDouble() * spread);
			this.refusedCeiling = Math.max(this.floorRate * REFUSED_FLOOR_SHARE / FLOOR_SHARE,
					this.paced.rate() / REFUSAL_DIVISOR);
			this.paced.rate(nowNanos, this.refusedCeiling);
			return;
		}
		this.refusalsInRow = 0;
		this.refusedCeiling = Double.MAX_VALUE;
		this.paced.rate(nowNanos, rateFor(this.remaining));
	}

	/** The rate for a remaining count: the cube of it over the reserve, times the policy's rate. */
	private double rateFor(long remaining) {
		double rate = this.policyRate * Math.pow(remaining / this.reserve, STEEPNESS);
		return Math.min(this.refusedCeiling, Math.max(this.floorRate, rate));
	}

	private void holdFor(long nowNanos, double seconds) {
		long until = nowNanos + (long) (seconds * NANOS_PER_SECOND);
		if (!this.holding || until - this.notBefore > 0) {
			this.notBefore = until;
			this.holding = true;
		}
	}

}
