package io.ratelimit.autoconfigure.web;

import io.ratelimit.core.Decision;

/**
 * Told about what the {@link RateLimitFilter} does: the hook for metrics and logging.
 * Called on the request thread, so implementations must be fast and must not throw.
 */
public interface RateLimitFilterListener {

	/** A listener that ignores everything. */
	RateLimitFilterListener NONE = new RateLimitFilterListener() {
	};

	/**
	 * Called for every decision, allowed or not.
	 * @param decision the decision
	 */
	default void onDecision(Decision decision) {
	}

	/**
	 * Called when the limiter failed to decide a request.
	 * @param failure what went wrong
	 */
	default void onFailure(RuntimeException failure) {
	}

}
