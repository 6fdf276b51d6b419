package io.ratelimit.autoconfigure.loginapp;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * An application with logins of every shape the limiter must not be talked around:
 * synchronous and asynchronous handlers, a handler mapped without a method, handlers that
 * redirect or say their outcome, and a login served by a filter (as Spring Security's
 * form login is). Every login accepts the password {@value LoginController#PASSWORD}
 * only, and answers a wrong one with 401.
 */
@SpringBootApplication
public class LoginApplication {

	/** The login the filter serves, the way Spring Security's form login is served. */
	public static final String FILTER_LOGIN = "/auth/login";

	@Bean
	FilterRegistrationBean<Filter> formLoginFilter() {
		Filter filter = (request, response, chain) -> {
			HttpServletRequest http = (HttpServletRequest) request;
			if ("POST".equals(http.getMethod()) && FILTER_LOGIN.equals(http.getServletPath())) {
				String password = request.getParameter("password");
				((HttpServletResponse) response)
					.setStatus(LoginController.PASSWORD.equals(password) ? 200 : HttpServletResponse.SC_UNAUTHORIZED);
				return;
			}
			chain.doFilter(request, response);
		};
		FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
		registration.setOrder(0);
		return registration;
	}

}
