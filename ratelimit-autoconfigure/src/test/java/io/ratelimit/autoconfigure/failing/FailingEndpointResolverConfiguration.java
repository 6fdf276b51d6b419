package io.ratelimit.autoconfigure.failing;

import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.core.endpoint.EndpointResolver;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Replaces the endpoint resolver with one that breaks on demand, to see what the filter
 * does when the limiter itself fails.
 */
@TestConfiguration(proxyBeanMethods = false)
public class FailingEndpointResolverConfiguration {

	@Bean
	EndpointResolver failingEndpointResolver(ApplicationContext context) {
		MvcEndpointResolver delegate = new MvcEndpointResolver(context);
		return (request) -> {
			if (request.header("X-Break-Limiter") != null) {
				throw new IllegalStateException("limiter broken on purpose");
			}
			return delegate.resolve(request);
		};
	}

}
