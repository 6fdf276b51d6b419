package io.ratelimit.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

/**
 * A strategy that gives permits only when a test opens its gate, one per permit opened, and
 * counts how often a waiting line asked for one, so that a test knows a request is in line
 * without sleeping. Lines ask again every 10 ms while they wait.
 */
public final class GatedStrategy implements PacingStrategy {

	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final AtomicInteger permits = new AtomicInteger();

	private final AtomicInteger asks = new AtomicInteger();

	@Override
	public Pacing newPacing(Target target, RandomGenerator random, long nowNanos) {
		return new Pacing() {

			@Override
			public long tryAcquire(long nowNanos) {
				GatedStrategy.this.asks.incrementAndGet();
				int before = GatedStrategy.this.permits.getAndUpdate((left) -> Math.max(0, left - 1));
				return (before > 0) ? 0 : POLL_NANOS;
			}

			@Override
			public void onFeedback(long nowNanos, Feedback feedback) {
			}

		};
	}

	/**
	 * Lets the given number of requests more through.
	 * @param permits the permits to give
	 */
	public void open(int permits) {
		this.permits.addAndGet(permits);
	}

	/**
	 * Waits until some line asked for a permit at least the given number of times in all.
	 * @param asks the count to reach
	 * @param timeout the longest to wait
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void awaitAsks(int asks, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.asks.get() < asks) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("No line asked for a permit " + asks + " times within " + timeout);
			}
			Thread.sleep(5);
		}
	}

}
