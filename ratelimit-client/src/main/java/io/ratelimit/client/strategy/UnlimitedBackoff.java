package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;

/**
 * UB: sends whenever no backoff is running; each refusal in a row doubles the bound of a
 * random wait, up to its cap; a success ends the run. It reads neither {@code Retry-After}
 * nor the {@code RateLimit} fields: it is the blind baseline.
 */
final class UnlimitedBackoff implements Pacing {

	private final RandomGenerator random;

	private final long initialBoundNanos;

	private final long capNanos;

	private int refusalsInRow;

	private boolean backingOff;

	private long notBefore;

	UnlimitedBackoff(BackoffSettings settings, RandomGenerator random) {
		this.random = random;
		this.initialBoundNanos = settings.initialBound().toNanos();
		long minimumCap = settings.minimumCap().toNanos();
		long maximumCap = settings.maximumCap().toNanos();
		this.capNanos = (maximumCap > minimumCap) ? random.nextLong(minimumCap, maximumCap + 1) : minimumCap;
	}

	@Override
	public long tryAcquire(long nowNanos) {
		if (this.backingOff && nowNanos - this.notBefore < 0) {
			return this.notBefore - nowNanos;
		}
		this.backingOff = false;
		return 0;
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		if (feedback.isRefused()) {
			this.refusalsInRow++;
			int doublings = Math.min(this.refusalsInRow - 1, 40);
			long bound = (this.initialBoundNanos > (this.capNanos >> doublings)) ? this.capNanos
					: Math.min(this.capNanos, this.initialBoundNanos << doublings);
			this.notBefore = nowNanos + this.random.nextLong(bound + 1);
			this.backingOff = true;
		}
		else if (feedback.hasResponse()) {
			this.refusalsInRow = 0;
		}
	}

}
