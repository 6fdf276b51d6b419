package io.ratelimit.autoconfigure.web;

import io.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Told about what the {@link RateLimitFilter} does: the hook for metrics and logging.
 * Called on the request thread, so implementations must be fast and must not throw.
 */
public interface RateLimitFilterListener {

	/** A listener that ignores everything. */
	RateLimitFilterListener NONE = new RateLimitFilterListener() {
	};

	/**
	 * Called for every decision, allowed or not, before the response is written.
	 * @param request the request decided
	 * @param decision the decision
	 */
	default void onDecision(HttpServletRequest request, Decision decision) {
	}

	/**
	 * Called when the limiter failed to decide a request.
	 * @param request the request that could not be decided
	 * @param failure what went wrong
	 */
	default void onFailure(HttpServletRequest request, RuntimeException failure) {
	}

}
