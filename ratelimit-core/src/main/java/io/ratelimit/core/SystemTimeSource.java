package io.ratelimit.core;

/**
 * The {@link TimeSource} backed by the JVM's clocks.
 */
enum SystemTimeSource implements TimeSource {

	INSTANCE;

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public long currentTimeMillis() {
		return System.currentTimeMillis();
	}

}
