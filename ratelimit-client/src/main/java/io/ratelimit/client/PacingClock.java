package io.ratelimit.client;

/**
 * The time every strategy and waiting line reads: a monotonic clock for pacing and a wall
 * clock for {@code Retry-After} dates and for the windows a fleet shares. Tests pass a clock
 * they advance by hand instead of sleeping.
 */
public interface PacingClock {

	/**
	 * Returns a monotonic reading in nanoseconds, for measuring elapsed time only.
	 * @return the current monotonic time in nanoseconds
	 */
	long nanoTime();

	/**
	 * Returns the wall-clock time in milliseconds since the epoch.
	 * @return the current time in epoch milliseconds
	 */
	long currentTimeMillis();

	/**
	 * Returns the system clock.
	 * @return a clock backed by {@link System#nanoTime()} and {@link System#currentTimeMillis()}
	 */
	static PacingClock system() {
		return SystemClock.INSTANCE;
	}

	/** The system clock. */
	enum SystemClock implements PacingClock {

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

}
