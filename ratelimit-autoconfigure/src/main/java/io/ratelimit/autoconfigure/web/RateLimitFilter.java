package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.util.Objects;

import io.ratelimit.autoconfigure.RateLimitProperties.FailureMode;
import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimiter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The servlet filter that puts every request through the {@link RateLimiter}: allowed
 * requests continue with the rate-limit fields set, rejected ones get 429 here and never
 * reach the application.
 * <p>
 * The limiter never turns a request into a 500: if it fails, the request passes
 * ({@link FailureMode#OPEN}) or gets 503 ({@link FailureMode#CLOSED}), and the failure is
 * reported to the {@link RateLimitFilterListener}.
 * <p>
 * A plain {@link Filter}: it is registered for {@code REQUEST} dispatches only, so the
 * container applies it once per request and error or async dispatches never reach it.
 * Spring's {@code OncePerRequestFilter} would add a request attribute to set, read and
 * remove on every request to guard against what the registration already rules out.
 */
public class RateLimitFilter implements Filter {

	private final RateLimiter limiter;

	private final FailureMode failureMode;

	private final RateLimitFilterListener listener;

	/**
	 * Creates a filter.
	 * @param limiter decides each request
	 * @param failureMode what happens when the limiter fails
	 * @param listener told about every decision and failure
	 */
	public RateLimitFilter(RateLimiter limiter, FailureMode failureMode, RateLimitFilterListener listener) {
		this.limiter = Objects.requireNonNull(limiter, "limiter must not be null");
		this.failureMode = Objects.requireNonNull(failureMode, "failureMode must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (request instanceof HttpServletRequest httpRequest && response instanceof HttpServletResponse httpResponse) {
			doFilter(httpRequest, httpResponse, chain);
		}
		else {
			chain.doFilter(request, response);
		}
	}

	private void doFilter(HttpServletRequest servletRequest, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		// Sensitive endpoints may need the body read ahead of the application, and replayed.
		CachedBodyRequest cached = this.limiter.hasSensitiveEndpoints() ? new CachedBodyRequest(servletRequest) : null;
		HttpServletRequest request = (cached != null) ? cached : servletRequest;
		Decision decision;
		try {
			decision = this.limiter.evaluate(new ServletRateLimitRequest(request));
		}
		catch (RuntimeException ex) {
			this.listener.onFailure(request, ex);
			if (this.failureMode == FailureMode.CLOSED) {
				ProblemResponses.unavailable(request, response);
				return;
			}
			chain.doFilter((cached != null) ? cached.forApplication() : request, response);
			return;
		}
		this.listener.onDecision(request, decision);
		if (decision.outcome() == Decision.Outcome.UNKNOWN_ENDPOINT) {
			ProblemResponses.notFound(request, response);
			return;
		}
		if (decision.isRejected()) {
			ProblemResponses.tooManyRequests(request, response, decision);
			return;
		}
		decision.forEachHeader(response::setHeader);
		chain.doFilter((cached != null) ? cached.forApplication() : request, response);
	}

}
