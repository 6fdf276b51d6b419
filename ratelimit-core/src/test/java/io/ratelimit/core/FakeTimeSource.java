package io.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A time source that moves only when told to, so tests never sleep.
 */
public final class FakeTimeSource implements TimeSource {

	private static final long START_NANOS = 1_000_000_000L;

	private final AtomicLong nanos = new AtomicLong(START_NANOS);

	private final long startEpochMillis;

	public FakeTimeSource() {
		this(Instant.parse("2026-01-01T00:00:00Z"));
	}

	public FakeTimeSource(Instant now) {
		this.startEpochMillis = now.toEpochMilli();
	}

	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	public void advanceMillis(long millis) {
		advance(Duration.ofMillis(millis));
	}

	public Instant now() {
		return Instant.ofEpochMilli(currentTimeMillis());
	}

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public long currentTimeMillis() {
		// From the nanosecond count, so that steps shorter than a millisecond add up.
		return this.startEpochMillis + (this.nanos.get() - START_NANOS) / 1_000_000L;
	}

}
