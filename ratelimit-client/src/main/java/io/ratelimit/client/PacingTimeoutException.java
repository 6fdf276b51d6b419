package io.ratelimit.client;

import java.time.Duration;

/**
 * Thrown when a request could not get a permit within its deadline: the target's quota is
 * spoken for by earlier requests, or the server asked for a longer wait than the deadline
 * allows. The request was not sent.
 */
public class PacingTimeoutException extends RuntimeException {

	private final transient Target target;

	private final Duration deadline;

	PacingTimeoutException(Target target, Duration deadline, String reason) {
		super("No permit to call " + target + " within " + deadline + ": " + reason
				+ "; the request was not sent (raise the pacer's maxWait to wait longer)");
		this.target = target;
		this.deadline = deadline;
	}

	/**
	 * Returns the target that had no permit to give.
	 * @return the target
	 */
	public Target target() {
		return this.target;
	}

	/**
	 * Returns the deadline the request had.
	 * @return the deadline
	 */
	public Duration deadline() {
		return this.deadline;
	}

}
