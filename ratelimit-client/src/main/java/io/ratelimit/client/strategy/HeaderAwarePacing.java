package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;
import io.ratelimit.client.RateLimitFields;

/**
 * Paces by what the server says. The {@code RateLimit} fields show every caller of a shared
 * quota the same remaining count, so each one steers its own rate to keep that count near a
 * reserve: faster while more is left, slower as it falls. Callers that never hear of each
 * other so slow down together before the quota runs dry, and the reserve absorbs the
 * requests sent on older news. A refusal is answered by waiting out {@code Retry-After} plus
 * a jitter that spreads the refused callers, and by halving the rate. A server that sends no
 * fields gets the adaptive token bucket.
 */
final class HeaderAwarePacing implements Pacing {

	private static final double NANOS_PER_SECOND = 1e9;

	/** The remaining count steered to, as a share of the quota. */
	private static final double RESERVE_SHARE = 0.2;

	/** How fast the rate follows the remaining count: e^GAIN per second at twice the reserve. */
	private static final double GAIN_PER_SECOND = 0.5;

	/** The most one response may change the rate by, as a factor. */
	private static final double MAXIMUM_STEP = Math.log(2);

	/** The lowest rate, as a share of the policy's: about one request a quarter-hour at 80/min. */
	private static final double MINIMUM_RATE_SHARE = 1.0 / 1024;

	private final AdaptiveTokenBucket uninformed;

	private final RandomGenerator random;

	private final LocalTokens paced;

	private boolean informed;

	private long steeredAt;

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
		return this.informed ? this.paced.tryTake(nowNanos) : this.uninformed.tryAcquire(nowNanos);
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		RateLimitFields fields = feedback.fields();
		if (fields == null || fields.ratePerSecond() <= 0) {
			this.informed = false;
			if (feedback.isRefused() && feedback.retryAfterMillis() >= 0) {
				holdFor(nowNanos, feedback.retryAfterMillis() / 1000.0);
			}
			this.uninformed.onFeedback(nowNanos, feedback);
			return;
		}
		double policyRate = fields.ratePerSecond();
		double minimumRate = policyRate * MINIMUM_RATE_SHARE;
		if (!this.informed) {
			this.informed = true;
			this.steeredAt = nowNanos;
			this.paced.rate(nowNanos, policyRate);
		}
		if (feedback.isRefused()) {
			this.refusalsInRow++;
			double waitSeconds = (feedback.retryAfterMillis() >= 0) ? feedback.retryAfterMillis() / 1000.0
					: fields.resetSeconds();
			double spread = Math.min(fields.windowSeconds(), (1L << Math.min(this.refusalsInRow, 20)) / policyRate);
			holdFor(nowNanos, waitSeconds + this.random.nextDouble() * spread);
			this.paced.rate(nowNanos, Math.max(minimumRate, this.paced.rate() / 2));
			this.steeredAt = nowNanos;
			return;
		}
		this.refusalsInRow = 0;
		double reserve = Math.max(1, fields.quota() * RESERVE_SHARE);
		double error = Math.max(-1, Math.min(1, (fields.remaining() - reserve) / reserve));
		double elapsed = Math.max(0, (nowNanos - this.steeredAt) / NANOS_PER_SECOND);
		double step = Math.max(-MAXIMUM_STEP, Math.min(MAXIMUM_STEP, GAIN_PER_SECOND * error * elapsed));
		this.paced.rate(nowNanos, Math.max(minimumRate, Math.min(fields.quota(), this.paced.rate() * Math.exp(step))));
		this.steeredAt = nowNanos;
	}

	private void holdFor(long nowNanos, double seconds) {
		long until = nowNanos + (long) (seconds * NANOS_PER_SECOND);
		if (!this.holding || until - this.notBefore > 0) {
			this.notBefore = until;
			this.holding = true;
		}
	}

}
