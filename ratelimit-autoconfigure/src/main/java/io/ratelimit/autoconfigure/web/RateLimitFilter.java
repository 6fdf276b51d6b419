package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.util.Objects;

import io.ratelimit.autoconfigure.RateLimitProperties.FailureMode;
import io.ratelimit.core.Decision;
import io.ratelimit.core.HeldPermits;
import io.ratelimit.core.LoginAttempt;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Permit;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * The servlet filter that puts every request through the {@link RateLimiter}: allowed
 * requests continue with the rate-limit fields set, rejected ones get 429 here and never
 * reach the application.
 * <p>
 * The limiter never turns a request into a 500: if it fails, the request passes
 * ({@link FailureMode#OPEN}) or gets 503 ({@link FailureMode#CLOSED}), and the failure is
 * reported to the {@link RateLimitFilterListener}.
 * <p>
 * A request is decided once, on its {@link DispatcherType#REQUEST REQUEST} dispatch: its
 * forwards, includes, error and async dispatches pass untouched, wherever the filter is
 * registered. That is how Spring's {@code OncePerRequestFilter} would behave here, without
 * the request attribute it sets and removes on every request (a string concatenation, a map
 * entry and a copy of the attribute listeners: about 110 bytes per request,
 * docs/benchmarks.md).
 * <p>
 * A request admitted under in-flight limits holds permits until its response completes:
 * {@link InFlightRelease} gives them back however the request ends.
 * <p>
 * With a {@link LoadShedder}, a request is shed (503) or admitted right after its endpoint
 * is resolved, before any identity work, and holds its place under the concurrency limit
 * until its response completes.
 */
public class RateLimitFilter implements Filter {

	private final RateLimiter limiter;

	private final FailureMode failureMode;

	private final RateLimitFilterListener listener;

	private final LoginOutcomes logins;

	private @Nullable LoadShedder shedder;

	/**
	 * Creates a filter whose login attempts succeed with a 2xx answer and earn no device
	 * token.
	 * @param limiter decides each request
	 * @param failureMode what happens when the limiter fails
	 * @param listener told about every decision and failure
	 */
	public RateLimitFilter(RateLimiter limiter, FailureMode failureMode, RateLimitFilterListener listener) {
		this(limiter, failureMode, listener, LoginOutcomes.DEFAULT);
	}

	/**
	 * Creates a filter.
	 * @param limiter decides each request
	 * @param failureMode what happens when the limiter fails
	 * @param listener told about every decision and failure
	 * @param logins which answers of a login endpoint mean success, and how device tokens
	 * reach the client
	 */
	public RateLimitFilter(RateLimiter limiter, FailureMode failureMode, RateLimitFilterListener listener,
			LoginOutcomes logins) {
		this.limiter = Objects.requireNonNull(limiter, "limiter must not be null");
		this.failureMode = Objects.requireNonNull(failureMode, "failureMode must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.logins = Objects.requireNonNull(logins, "logins must not be null");
	}

	/**
	 * Sets the load shedder that admits requests before they are rate-limited.
	 * @param shedder the shedder, {@code null} for none (the default)
	 */
	public void setLoadShedder(@Nullable LoadShedder shedder) {
		this.shedder = shedder;
	}

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (request.getDispatcherType() == DispatcherType.REQUEST && request instanceof HttpServletRequest http
				&& response instanceof HttpServletResponse httpResponse) {
			decide(http, httpResponse, chain);
		}
		else {
			chain.doFilter(request, response);
		}
	}

	private void decide(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		LoadShedder shedder = this.shedder;
		if (shedder == null) {
			decide(request, response, chain, null);
			return;
		}
		EndpointTemplate endpoint;
		try {
			endpoint = this.limiter.endpoints().resolve(new ServletRateLimitRequest(request));
		}
		catch (RuntimeException ex) {
			// Not shed: the limiter meets the same failure and answers by its failure mode.
			decide(request, response, chain, null);
			return;
		}
		Permit permit = shedder.acquire(endpoint);
		if (permit == null) {
			ProblemResponses.shed(request, response, endpoint, shedder.priorityOf(endpoint),
					shedder.retryAfterSeconds());
			return;
		}
		PermitHoldingChain holding = new PermitHoldingChain(chain, permit);
		try {
			decide(request, response, holding, endpoint);
		}
		finally {
			holding.releaseIfNotReached();
		}
	}

	private void decide(HttpServletRequest servletRequest, HttpServletResponse response, FilterChain chain,
			@Nullable EndpointTemplate endpoint) throws ServletException, IOException {
		// Sensitive endpoints may need the body read ahead of the application, and replayed.
		CachedBodyRequest cached = this.limiter.hasSensitiveEndpoints() ? new CachedBodyRequest(servletRequest) : null;
		HttpServletRequest request = (cached != null) ? cached : servletRequest;
		Decision decision;
		try {
			ServletRateLimitRequest view = new ServletRateLimitRequest(request);
			decision = (endpoint != null) ? this.limiter.evaluate(view, endpoint) : this.limiter.evaluate(view);
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
		HeldPermits permits = decision.permits();
		if (permits == null) {
			answer(decision, request, cached, response, chain);
			return;
		}
		// From here on, whatever throws (a listener, the application), the permits go back.
		try {
			answer(decision, request, cached, response, chain);
		}
		finally {
			InFlightRelease.whenResponseCompletes(request, permits);
		}
	}

	private void answer(Decision decision, HttpServletRequest request, @Nullable CachedBodyRequest cached,
			HttpServletResponse response, FilterChain chain) throws IOException, ServletException {
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
		HttpServletRequest forApplication = (cached != null) ? cached.forApplication() : request;
		LoginAttempt attempt = decision.attempt();
		if (attempt != null) {
			this.logins.run(attempt, forApplication, response, chain);
			return;
		}
		chain.doFilter(forApplication, response);
	}

}
