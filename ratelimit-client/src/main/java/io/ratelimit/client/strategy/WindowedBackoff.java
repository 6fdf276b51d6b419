package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;

/**
 * WB: {@link UnlimitedBackoff} that also sends at most a fixed number of requests in any
 * sliding window.
 */
final class WindowedBackoff implements Pacing {

	private final UnlimitedBackoff backoff;

	private final long windowNanos;

	/** The send times of the last {@code length} requests, oldest at {@code next}. */
	private final long[] sentAt;

	private int sent;

	private int next;

	WindowedBackoff(BackoffSettings settings, int maximumRequests, long windowNanos, RandomGenerator random) {
		this.backoff = new UnlimitedBackoff(settings, random);
		this.windowNanos = windowNanos;
		this.sentAt = new long[maximumRequests];
	}

	@Override
	public long tryAcquire(long nowNanos) {
		if (this.sent == this.sentAt.length) {
			long windowFreesAt = this.sentAt[this.next] + this.windowNanos;
			if (nowNanos - windowFreesAt < 0) {
				return windowFreesAt - nowNanos;
			}
		}
		long wait = this.backoff.tryAcquire(nowNanos);
		if (wait == 0) {
			this.sentAt[this.next] = nowNanos;
			this.next = (this.next + 1) % this.sentAt.length;
			this.sent = Math.min(this.sent + 1, this.sentAt.length);
		}
		return wait;
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		this.backoff.onFeedback(nowNanos, feedback);
	}

}
