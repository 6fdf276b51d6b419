package io.ratelimit.autoconfigure.differential;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.UrlHandlerFilter;

/**
 * Spring Framework 7's trailing-slash handling, as an application declares it: a
 * {@link UrlHandlerFilter} bean, which Spring Boot registers as an ordinary filter (after
 * the limiter). Under {@value #WRAP} it trims the slash from {@code /api/**} requests before
 * the handler sees them; under {@value #REDIRECT} it redirects them to the path without it.
 */
@Configuration(proxyBeanMethods = false)
public class TrailingSlashConfiguration {

	/** The profile that wraps requests. */
	public static final String WRAP = "trailing-slash-wrap";

	/** The profile that redirects requests. */
	public static final String REDIRECT = "trailing-slash-redirect";

	@Bean
	@Profile(WRAP)
	UrlHandlerFilter trailingSlashWrappingFilter() {
		return UrlHandlerFilter.trailingSlashHandler("/api/**").wrapRequest().build();
	}

	@Bean
	@Profile(REDIRECT)
	UrlHandlerFilter trailingSlashRedirectingFilter() {
		return UrlHandlerFilter.trailingSlashHandler("/api/**").redirect(HttpStatus.PERMANENT_REDIRECT).build();
	}

}
