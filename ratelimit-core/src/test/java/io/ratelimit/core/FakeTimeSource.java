package io.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A time source that moves only when told to, so tests never sleep.
 */
public final class FakeTimeSource implements TimeSource {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final AtomicLong epochMillis;

	public FakeTimeSource() {
		this(Instant.parse("2026-01-01T00:00:00Z"));
	}

	public FakeTimeSource(Instant now) {
		this.epochMillis = new AtomicLong(now.toEpochMilli());
	}

	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
		this.epochMillis.addAndGet(duration.toMillis());
	}

	public void advanceMillis(long millis) {
		advance(Duration.ofMillis(millis));
	}

	public Instant now() {
		return Instant.ofEpochMilli(this.epochMillis.get());
	}

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public long currentTimeMillis() {
		return this.epochMillis.get();
	}

}
