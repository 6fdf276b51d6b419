package io.ratelimit.autoconfigure.web;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.filter.UrlHandlerFilter;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link MvcEndpointResolver#remembered} answers when a {@code UrlHandlerFilter} trims
 * trailing slashes: templates are remembered under the URI the handler sees, so a URI as
 * received that the filter would still trim has none of its own.
 */
class TrailingSlashRememberedTest {

	private AnnotationConfigWebApplicationContext context;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigWebApplicationContext();
		this.context.setServletContext(new MockServletContext());
		this.context.register(WebConfiguration.class);
		this.context.refresh();
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void rememberedWhenFilterWouldTrimTheUriThenNothingRemembered() {
		MvcEndpointResolver resolver = new MvcEndpointResolver(this.context);
		// Trimmed once to /api/x/1/, which the route with a trailing slash serves.
		assertThat(resolver.resolve(new ServletRateLimitRequest(new MockHttpServletRequest("GET", "/api/x/1//"))))
			.isEqualTo(EndpointTemplate.parse("GET /api/x/*/"));

		MockHttpServletRequest slash = new MockHttpServletRequest("GET", "/api/x/1/");

		assertThat(resolver.remembered(slash)).isNull();
		// Trimmed to /api/x/1: the route without the slash serves it.
		assertThat(resolver.resolve(new ServletRateLimitRequest(slash))).isEqualTo(EndpointTemplate.parse("GET /api/x/*"));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration {

		@Bean
		UrlHandlerFilter trailingSlashFilter() {
			return UrlHandlerFilter.trailingSlashHandler("/api/**").wrapRequest().build();
		}

		@Bean
		Routes routes() {
			return new Routes();
		}

	}

	@RestController
	static class Routes {

		@GetMapping("/api/x/{id}")
		String x(@PathVariable String id) {
			return "x";
		}

		@GetMapping("/api/x/{id}/")
		String xWithSlash(@PathVariable String id) {
			return "x/";
		}

	}

}
