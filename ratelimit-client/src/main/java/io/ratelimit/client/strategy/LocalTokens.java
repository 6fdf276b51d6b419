package io.ratelimit.client.strategy;

/**
 * The caller's own token bucket: a rate that may change at any time, a capacity, and a
 * fractional token count refilled from the elapsed monotonic time.
 */
final class LocalTokens {

	private static final double NANOS_PER_SECOND = 1e9;

	private final double capacity;

	private double ratePerSecond;

	private double tokens;

	private long refilledAt;

	LocalTokens(double ratePerSecond, double capacity, double tokens, long nowNanos) {
		this.ratePerSecond = ratePerSecond;
		this.capacity = capacity;
		this.tokens = tokens;
		this.refilledAt = nowNanos;
	}

	/** Takes one token, or returns the nanoseconds until one is there. */
	long tryTake(long nowNanos) {
		refill(nowNanos);
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return 0;
		}
		return Math.max(1, (long) Math.ceil((1 - this.tokens) / this.ratePerSecond * NANOS_PER_SECOND));
	}

	double rate() {
		return this.ratePerSecond;
	}

	/** Changes the rate from now on; the tokens earned so far are kept. */
	void rate(long nowNanos, double ratePerSecond) {
		refill(nowNanos);
		this.ratePerSecond = ratePerSecond;
	}

	void tokens(long nowNanos, double tokens) {
		refill(nowNanos);
		this.tokens = Math.min(tokens, this.capacity);
	}

	double tokens(long nowNanos) {
		refill(nowNanos);
		return this.tokens;
	}

	private void refill(long nowNanos) {
		long elapsed = nowNanos - this.refilledAt;
		if (elapsed > 0) {
			this.tokens = Math.min(this.capacity, this.tokens + elapsed / NANOS_PER_SECOND * this.ratePerSecond);
			this.refilledAt = nowNanos;
		}
	}

}
