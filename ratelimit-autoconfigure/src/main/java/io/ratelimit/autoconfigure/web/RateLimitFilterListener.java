package io.ratelimit.autoconfigure.web;

import java.util.List;

import io.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Told about what the {@link RateLimitFilter} does: the hook for metrics and logging.
 * Called on the request thread, so implementations must be fast and must not throw. The
 * auto-configuration tells every bean of this type, in {@code @Order}, metrics included.
 */
public interface RateLimitFilterListener {

	/** A listener that ignores everything. */
	RateLimitFilterListener NONE = new RateLimitFilterListener() {
	};

	/**
	 * Returns a listener that tells each of the given listeners, in order.
	 * @param listeners the listeners
	 * @return {@link #NONE} for none, the listener itself for one, else a composite
	 */
	static RateLimitFilterListener of(List<? extends RateLimitFilterListener> listeners) {
		List<RateLimitFilterListener> all = List.copyOf(listeners);
		if (all.isEmpty()) {
			return NONE;
		}
		if (all.size() == 1) {
			return all.get(0);
		}
		return new RateLimitFilterListener() {

			@Override
			public void onDecision(HttpServletRequest request, Decision decision) {
				for (RateLimitFilterListener listener : all) {
					listener.onDecision(request, decision);
				}
			}

			@Override
			public void onFailure(HttpServletRequest request, RuntimeException failure) {
				for (RateLimitFilterListener listener : all) {
					listener.onFailure(request, failure);
				}
			}

		};
	}

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
