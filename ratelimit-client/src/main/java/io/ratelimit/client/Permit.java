package io.ratelimit.client;

/**
 * Leave to send one request to a target. Report what the response said with
 * {@link #complete}, so that the target's strategy adapts; a permit never completed teaches
 * the strategy nothing, and costs nothing else.
 */
public interface Permit {

	/**
	 * Returns the target the permit is for.
	 * @return the target
	 */
	Target target();

	/**
	 * Reports the outcome of the request. Later calls are ignored.
	 * @param feedback what the response said, or {@link Feedback#noResponse()}
	 */
	void complete(Feedback feedback);

}
