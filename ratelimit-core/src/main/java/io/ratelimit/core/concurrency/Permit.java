package io.ratelimit.core.concurrency;

/**
 * One request's place under an in-flight limit, held from the decision until its response
 * completes. Released once; the holder (the limiter's {@code HeldPermits}) makes sure of that.
 */
public interface Permit {

	/**
	 * Returns how many more requests of the same caller the limit admitted when this permit
	 * was taken, the {@code r} of the {@code RateLimit} field.
	 * @return the permits left, at least 0
	 */
	long remaining();

	/**
	 * Gives the permit back. Called exactly once.
	 */
	void release();

}
