package io.ratelimit.sample.adversarial;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.core.TimeSource;

/**
 * A clock that moves only when told to. Buckets on this clock neither refill nor expire
 * during a burst of requests, so an attack's admitted count is exact however slowly the
 * machine sends it.
 */
public final class FakeClock implements TimeSource {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final long startMillis = System.currentTimeMillis();

	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	/**
	 * Returns the time elapsed on this clock since it was created.
	 * @return the elapsed time
	 */
	public Duration elapsed() {
		return Duration.ofNanos(this.nanos.get() - 1_000_000_000L);
	}

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public long currentTimeMillis() {
		return this.startMillis + elapsed().toMillis();
	}

}
