package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

import io.ratelimit.core.LoginAttempt;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;

/**
 * Tells the limiter how the application answered an admitted login attempt, and hands
 * the client the device token a success earned. When a token may be due, the response is
 * held back (body buffered) until the status is known, so the token can still go in its headers; a redirect or an
 * error sent by the application is settled the moment it is sent, before it commits.
 */
public final class LoginOutcomes {

	/** Successful logins are 2xx, no device tokens: what a filter built without settings does. */
	public static final LoginOutcomes DEFAULT = new LoginOutcomes(statuses(List.of("200-299")), null);

	private final BitSet successStatuses;

	private final @Nullable TokenIssuer issuer;

	private LoginOutcomes(BitSet successStatuses, @Nullable TokenIssuer issuer) {
		this.successStatuses = successStatuses;
		this.issuer = issuer;
	}

	/**
	 * Returns outcomes judged by the given statuses, without device tokens.
	 * @param successStatuses statuses and ranges ('200-299') that mean success
	 * @return the outcomes
	 * @throws IllegalArgumentException naming an entry that is no status or range
	 */
	public static LoginOutcomes of(List<String> successStatuses) {
		return new LoginOutcomes(statuses(successStatuses), null);
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
					.toString()));
	}

	/**
	 * Returns these outcomes with device tokens handed out in a response header.
	 * @param name the header name
	 * @return the outcomes
	 */
	public LoginOutcomes withHeader(String name) {
		Objects.requireNonNull(name, "name must not be null");
		return new LoginOutcomes(this.successStatuses, (token, response) -> response.setHeader(name, token));
	}

	boolean isSuccess(int status) {
		return status >= 0 && this.successStatuses.get(status);
	}

	/**
	 * Runs the application on an admitted attempt, then completes it with the status the
	 * application answered.
	 */
	void run(LoginAttempt attempt, HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (this.issuer == null || !attempt.earnsDeviceToken()) {
			// No header to add: the status is all there is to read, after the fact.
			chain.doFilter(request, response);
			attempt.complete(isSuccess(response.getStatus()));
			return;
		}
		LoginResponse held = new LoginResponse(response, (status) -> settle(attempt, status, response));
		try {
			chain.doFilter(request, held);
			held.settle(held.getStatus());
		}
		finally {
			held.copyBodyToResponse();
		}
	}

	private void settle(LoginAttempt attempt, int status, HttpServletResponse response) {
		String token = attempt.complete(isSuccess(status));
		if (token != null && this.issuer != null && !response.isCommitted()) {
			this.issuer.issue(token, response);
		}
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
