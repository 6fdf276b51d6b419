package io.ratelimit.client;

/**
 * The state of one strategy for one {@link Target}: when the next request may go, and how
 * that changes with each response. Implementations need not be thread-safe: a
 * {@link RequestPacer} calls them from one thread at a time, under the target's lock, and
 * passes the time so that tests drive them on a virtual clock.
 */
public interface Pacing {

	/**
	 * Takes a permit to send one request now, or says how long to wait before asking again.
	 * @param nowNanos the monotonic time
	 * @return 0 when a permit was taken, otherwise the nanoseconds to wait (positive)
	 */
	long tryAcquire(long nowNanos);

	/**
	 * Adapts to the outcome of a request sent with a permit.
	 * @param nowNanos the monotonic time the response arrived
	 * @param feedback what the response said
	 */
	void onFeedback(long nowNanos, Feedback feedback);

}
