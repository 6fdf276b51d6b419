package io.ratelimit.autoconfigure.web;

import jakarta.servlet.ServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The application's own word on a login attempt, for when the response status cannot
 * tell success from failure: an application whose failed and successful logins both
 * redirect (Spring Security's form login does), or answer 200 with an error in the body.
 * Said on the request, before the response is sent:
 * <pre>{@code
 * LoginOutcome.succeeded(request);
 * response.sendRedirect("/home");
 * }</pre>
 * What the application says decides, whatever the status; an attempt it says nothing of
 * is judged by {@code ratelimit.login.success-statuses}. Set those to none to count only
 * the successes the application says. Saying something on a request that is no admitted
 * login attempt does nothing.
 */
public final class LoginOutcome {

	/** The request attribute that holds what the application said. */
	static final String ATTRIBUTE = LoginOutcome.class.getName();

	private LoginOutcome() {
	}

	/**
	 * Says that the login attempt of this request succeeded: the account's token is given
	 * back, and a device token may be handed out.
	 * @param request the login request
	 */
	public static void succeeded(ServletRequest request) {
		request.setAttribute(ATTRIBUTE, Boolean.TRUE);
	}

	/**
	 * Says that the login attempt of this request failed: the account's token is kept,
	 * whatever the status of the answer.
	 * @param request the login request
	 */
	public static void failed(ServletRequest request) {
		request.setAttribute(ATTRIBUTE, Boolean.FALSE);
	}

	static @Nullable Boolean said(ServletRequest request) {
		return (request.getAttribute(ATTRIBUTE) instanceof Boolean said) ? said : null;
	}

}
