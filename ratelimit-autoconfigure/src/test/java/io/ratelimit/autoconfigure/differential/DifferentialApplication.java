package io.ratelimit.autoconfigure.differential;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * An application that records, per request, both sides of the limiter's central invariant:
 * the template the limiter charged (through the {@code RateLimitFilterListener} hook) and
 * the handler pattern Spring MVC actually served the request with (through a handler
 * interceptor). It lives in a package of its own so that neither it nor the shop test
 * application scans the other's beans.
 */
@SpringBootApplication
public class DifferentialApplication implements WebMvcConfigurer {

	private final RequestLedger ledger = new RequestLedger();

	@Bean
	RequestLedger requestLedger() {
		return this.ledger;
	}

	@Bean
	ChargeRecorder chargeRecorder() {
		return new ChargeRecorder(this.ledger);
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		// No path patterns: every handler mapping applies it, the static-resource one included.
		registry.addInterceptor(new ServingRecorder(this.ledger));
	}

	/**
	 * Routes of a URL-based handler mapping rather than annotated controllers: such mappings
	 * expose their pattern only while the handler's interceptors run.
	 */
	@Override
	public void addViewControllers(ViewControllerRegistry registry) {
		registry.addStatusController("/api/ping", HttpStatus.NO_CONTENT);
		registry.addStatusController("/api/legacy/{id}", HttpStatus.GONE);
		// Registered after the pattern it overlaps, so only specificity can choose it.
		registry.addStatusController("/api/legacy/current", HttpStatus.OK);
		registry.addRedirectViewController("/api/old-products", "/api/products");
	}

}
