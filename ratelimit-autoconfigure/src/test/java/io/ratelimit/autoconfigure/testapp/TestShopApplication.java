package io.ratelimit.autoconfigure.testapp;

import java.security.Principal;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * An application with its own entity, repository and Flyway migration, and a few
 * endpoints of the shapes the limiter must tell apart.
 */
@SpringBootApplication
public class TestShopApplication {

	/** Header naming the user a request is authenticated as, standing in for real security. */
	public static final String TEST_USER = "X-Test-User";

	@Bean
	FilterRegistrationBean<Filter> testUserFilter() {
		Filter filter = (request, response, chain) -> {
			String user = ((HttpServletRequest) request).getHeader(TEST_USER);
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
				@Override
				public Principal getUserPrincipal() {
					return principal;
				}
			}, response);
		};
		return new FilterRegistrationBean<>(filter);
	}

}
