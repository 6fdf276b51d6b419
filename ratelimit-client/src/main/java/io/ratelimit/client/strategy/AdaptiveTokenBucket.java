package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;

/**
 * ATB: sends only when the caller's own bucket has a token, and infers congestion from
 * refusals. On success the rate grows, faster while below the rate that last met a refusal;
 * on a refusal it remembers that rate, empties the bucket and halves the rate (not below a
 * jittered floor). Responses that are neither (an I/O error) change nothing.
 */
final class AdaptiveTokenBucket implements Pacing {

	private final AdaptiveSettings settings;

	private final RandomGenerator random;

	private final LocalTokens tokens;

	private double lastCongestionRate;

	AdaptiveTokenBucket(AdaptiveSettings settings, RandomGenerator random, long nowNanos) {
		this.settings = settings;
		this.random = random;
		this.tokens = new LocalTokens(settings.initialRate(), settings.bucketSize(), settings.initialTokens(), nowNanos);
		this.lastCongestionRate = settings.initialCongestionRate();
	}

	@Override
	public long tryAcquire(long nowNanos) {
		return this.tokens.tryTake(nowNanos);
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		if (feedback.isRefused()) {
			onRefusal(nowNanos);
		}
		else if (feedback.hasResponse()) {
			onSuccess(nowNanos);
		}
	}

	void onSuccess(long nowNanos) {
		double rate = this.tokens.rate();
		double factor = (rate < this.lastCongestionRate) ? this.settings.belowCongestionFactor()
				: this.settings.aboveCongestionFactor();
		this.tokens.rate(nowNanos, Math.max(rate + this.settings.step(), rate * factor));
	}

	void onRefusal(long nowNanos) {
		double rate = this.tokens.rate();
		this.lastCongestionRate = rate;
		this.tokens.tokens(nowNanos, 0);
		double jitter = this.settings.floorJitter();
		double floor = this.settings.floorRate() + ((jitter > 0) ? this.random.nextDouble(-jitter, jitter) : 0);
		this.tokens.rate(nowNanos, Math.max(floor, rate / 2));
	}

	double rate() {
		return this.tokens.rate();
	}

	/** The bucket, which the assisted variant steers directly. */
	LocalTokens tokens() {
		return this.tokens;
	}

}
