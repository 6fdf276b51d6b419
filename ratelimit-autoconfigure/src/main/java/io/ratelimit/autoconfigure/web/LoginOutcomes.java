package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

import io.ratelimit.core.LoginAttempt;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;

/**
 * Tells the limiter how the application answered an admitted login attempt, and hands
 * the client the device token a success earned. The outcome is the application's explicit
 * word when it gave one ({@link LoginOutcome}), else the status it answered. When a token
 * may be due, the response body is held back (up to a limit) until the outcome is known,
 * so the token can still go in its headers; a redirect or an error sent by the
 * application is settled the moment it is sent, before it commits.
 * <p>
 * An asynchronous handler ({@code Callable}, {@code DeferredResult},
 * {@code CompletableFuture}, Kotlin {@code suspend}) answers after the filter chain has
 * returned: its attempt is settled when the asynchronous request completes, with the
 * status it really sent, and earns no device token, since its headers may be on their way
 * before the outcome is known.
 */
public final class LoginOutcomes {

	/** Largest login body held back while a device token may be due, unless configured. */
	static final int DEFAULT_RESPONSE_LIMIT = 64 * 1024;

	/** Successful logins are 2xx, no device tokens: what a filter built without settings does. */
	public static final LoginOutcomes DEFAULT = new LoginOutcomes(statuses(List.of("200-299")), null,
			DEFAULT_RESPONSE_LIMIT);

	private final BitSet successStatuses;

	private final @Nullable TokenIssuer issuer;

	private final int responseLimit;

	private LoginOutcomes(BitSet successStatuses, @Nullable TokenIssuer issuer, int responseLimit) {
		this.successStatuses = successStatuses;
		this.issuer = issuer;
		this.responseLimit = responseLimit;
	}

	/**
	 * Returns outcomes judged by the given statuses, without device tokens.
	 * @param successStatuses statuses and ranges ('200-299') that mean success; none, for
	 * applications that say every success explicitly ({@link LoginOutcome})
	 * @return the outcomes
	 * @throws IllegalArgumentException naming an entry that is no status or range
	 */
	public static LoginOutcomes of(List<String> successStatuses) {
		return new LoginOutcomes(statuses(successStatuses), null, DEFAULT_RESPONSE_LIMIT);
	}

	/**
	 * Returns these outcomes holding back at most the given number of bytes of a login
	 * response while a device token may be due.
	 * @param responseLimit the most bytes held
	 * @return the outcomes
	 */
	public LoginOutcomes withResponseLimit(int responseLimit) {
		if (responseLimit < 0) {
			throw new IllegalArgumentException("The response limit must not be negative, but was " + responseLimit);
		}
		return new LoginOutcomes(this.successStatuses, this.issuer, responseLimit);
	}

	/**
	 * Returns these outcomes with device tokens handed out as a cookie.
	 * @param name the cookie name
	 * @param secure whether the cookie is sent over HTTPS only
	 * @param sameSite the SameSite attribute
	 * @param path the Path attribute
	 * @param lifetime the cookie's Max-Age, the tokens' lifetime
	 * @return the outcomes
	 */
	public LoginOutcomes withCookie(String name, boolean secure, String sameSite, String path, Duration lifetime) {
		Objects.requireNonNull(name, "name must not be null");
		return new LoginOutcomes(this.successStatuses, (token, response) -> response.addHeader(HttpHeaders.SET_COOKIE,
				ResponseCookie.from(name, token)
					.httpOnly(true)
					.secure(secure)
					.sameSite(sameSite)
					.path(path)
					.maxAge(lifetime)
					.build()
					.toString()), this.responseLimit);
	}

	/**
	 * Returns these outcomes with device tokens handed out in a response header.
	 * @param name the header name
	 * @return the outcomes
	 */
	public LoginOutcomes withHeader(String name) {
		Objects.requireNonNull(name, "name must not be null");
		return new LoginOutcomes(this.successStatuses, (token, response) -> response.setHeader(name, token),
				this.responseLimit);
	}

	boolean isSuccess(HttpServletRequest request, int status) {
		Boolean said = LoginOutcome.said(request);
		if (said != null) {
			return said;
		}
		return status >= 0 && status < this.successStatuses.size() && this.successStatuses.get(status);
	}

	/**
	 * Runs the application on an admitted attempt, then completes it with the outcome the
	 * application answered.
	 */
	void run(LoginAttempt attempt, HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (this.issuer == null || !attempt.earnsDeviceToken()) {
			// No header to add: the outcome is all there is to read, after the fact.
			chain.doFilter(request, response);
			if (request.isAsyncStarted()) {
				whenCompleted(request, () -> attempt.completeWithoutToken(isSuccess(request, response.getStatus())));
			}
			else {
				attempt.complete(isSuccess(request, response.getStatus()));
			}
			return;
		}
		LoginResponse held = new LoginResponse(response, this.responseLimit,
				(status, tokenDeliverable) -> settle(attempt, request, status, tokenDeliverable, response));
		try {
			chain.doFilter(request, held);
			if (request.isAsyncStarted()) {
				whenCompleted(request, () -> held.settle(response.getStatus()));
			}
			else {
				held.settle(held.getStatus());
			}
		}
		finally {
			held.release();
		}
	}

	private void settle(LoginAttempt attempt, HttpServletRequest request, int status, boolean tokenDeliverable,
			HttpServletResponse response) {
		boolean succeeded = isSuccess(request, status);
		if (!tokenDeliverable || this.issuer == null) {
			attempt.completeWithoutToken(succeeded);
			return;
		}
		String token = attempt.complete(succeeded);
		if (token != null) {
			this.issuer.issue(token, response);
		}
	}

	/**
	 * Runs the settlement when the asynchronous request completes, whether the handler
	 * answered, failed or timed out: the container calls {@code onComplete} last in each
	 * case, with the status sent.
	 */
	private static void whenCompleted(HttpServletRequest request, Runnable settlement) {
		request.getAsyncContext().addListener(new AsyncListener() {

			@Override
			public void onComplete(AsyncEvent event) {
				settlement.run();
			}

			@Override
			public void onTimeout(AsyncEvent event) {
			}

			@Override
			public void onError(AsyncEvent event) {
			}

			@Override
			public void onStartAsync(AsyncEvent event) {
				// A handler that starts asynchronous processing again keeps this listener.
				event.getAsyncContext().addListener(this);
			}

		});
	}

	private static BitSet statuses(List<String> entries) {
		BitSet statuses = new BitSet(600);
		for (String entry : entries) {
			String trimmed = entry.strip();
			int dash = trimmed.indexOf('-');
			try {
				int from = Integer.parseInt((dash < 0) ? trimmed : trimmed.substring(0, dash).strip());
				int to = (dash < 0) ? from : Integer.parseInt(trimmed.substring(dash + 1).strip());
				if (from < 100 || to > 599 || from > to) {
					throw new IllegalArgumentException("not within 100-599");
				}
				statuses.set(from, to + 1);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("entry '" + entry + "': expected a status or a range such as "
						+ "'200-299' (" + ex.getMessage() + ")", ex);
			}
		}
		return statuses;
	}

	@FunctionalInterface
	private interface TokenIssuer {

		void issue(String token, HttpServletResponse response);

	}

}
