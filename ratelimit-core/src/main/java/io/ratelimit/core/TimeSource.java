package io.ratelimit.core;

/**
 * The one clock of the limiter. Buckets, caches and token expiry all read time from here,
 * so tests advance a fake time source instead of sleeping.
 */
public interface TimeSource {

	/**
	 * Returns a monotonic reading in nanoseconds, for measuring elapsed time only.
	 * @return the current monotonic time in nanoseconds
	 */
	long nanoTime();

	/**
	 * Returns the wall-clock time in milliseconds since the epoch, for token expiry and the
	 * legacy reset header.
	 * @return the current time in epoch milliseconds
	 */
	long currentTimeMillis();

	/**
	 * Returns the system time source.
	 * @return a time source backed by {@link System#nanoTime()} and
	 * {@link System#currentTimeMillis()}
	 */
	static TimeSource system() {
		return SystemTimeSource.INSTANCE;
	}

}
