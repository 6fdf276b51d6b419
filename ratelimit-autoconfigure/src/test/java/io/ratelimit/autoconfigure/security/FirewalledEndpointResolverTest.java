package io.ratelimit.autoconfigure.security;

import io.ratelimit.autoconfigure.web.ServletRateLimitRequest;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockServletContext;
import org.springframework.security.web.firewall.FirewalledRequest;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The firewall in front of endpoint resolution: what either firewall rejects is charged to
 * UNKNOWN however often it is asked, and what the default firewall admitted once is
 * remembered only for the same method and URI, also when the answers Spring MVC's handler
 * mappings gave are remembered in front of the firewall.
 */
class FirewalledEndpointResolverTest {

	private static final EndpointTemplate THINGS = EndpointTemplate.of("GET", "/api/things/*");

	// Stands for Spring MVC: every request reaches a handler.
	private static final EndpointResolver HANDLER = (request) -> THINGS;

	@Test
	void defaultFirewallRejectionsAreUnknownEveryTime() {
		FirewalledEndpointResolver resolver = FirewalledEndpointResolver.withDefaultFirewall(HANDLER);
		for (int i = 0; i < 3; i++) {
			assertThat(resolver.resolve(request("GET", "/api/things/1;x=y", "/api/things/1"))).isEqualTo(EndpointTemplate.UNKNOWN);
			assertThat(resolver.resolve(request("GET", "/api//things/1", "/api/things/1"))).isEqualTo(EndpointTemplate.UNKNOWN);
			assertThat(resolver.resolve(request("GET", "/api/things/%2e%2e", "/api"))).isEqualTo(EndpointTemplate.UNKNOWN);
		}
	}

	@Test
	void defaultFirewallAdmissionHoldsForThatMethodAndUriOnly() {
		FirewalledEndpointResolver resolver = FirewalledEndpointResolver.withDefaultFirewall(HANDLER);
		assertThat(resolver.resolve(request("GET", "/api/things/1", "/api/things/1"))).isEqualTo(THINGS);
		assertThat(resolver.resolve(request("GET", "/api/things/1", "/api/things/1"))).isEqualTo(THINGS);
		// The strict firewall refuses TRACE: the admitted GET of the same URI does not carry over.
		assertThat(resolver.resolve(request("TRACE", "/api/things/1", "/api/things/1"))).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(resolver.resolve(request("GET", "/api/things/1;x", "/api/things/1"))).isEqualTo(EndpointTemplate.UNKNOWN);
	}

	@Test
	void defaultFirewallOverHandlerMappingsWhenPathRememberedThenRejectedFormsStillUnknown() {
		try (AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext()) {
			context.setServletContext(new MockServletContext());
			context.register(ThingsConfiguration.class);
			context.refresh();
			FirewalledEndpointResolver resolver = FirewalledEndpointResolver.withDefaultFirewall(context);
			for (int i = 0; i < 3; i++) {
				assertThat(resolver.resolve(request("GET", "/api/things/1", "/api/things/1"))).isEqualTo(THINGS);
				// Spring MVC would serve these with the same handler; Spring Security refuses them.
				assertThat(resolver.resolve(request("GET", "/api/things/1;x=y", "/api/things/1")))
					.isEqualTo(EndpointTemplate.UNKNOWN);
				assertThat(resolver.resolve(request("GET", "/api//things/1", "/api/things/1")))
					.isEqualTo(EndpointTemplate.UNKNOWN);
				assertThat(resolver.resolve(request("TRACE", "/api/things/1", "/api/things/1")))
					.isEqualTo(EndpointTemplate.UNKNOWN);
			}
		}
	}

	@Test
	void applicationFirewallIsAskedAboutEveryRequest() {
		// A firewall that looks beyond the URI: the same URI is admitted, then refused.
		HttpFirewall byHost = new StrictHttpFirewall() {

			@Override
			public FirewalledRequest getFirewalledRequest(HttpServletRequest request) {
				if (!"api.example.com".equals(request.getServerName())) {
					throw new RequestRejectedException("unknown host " + request.getServerName());
				}
				return super.getFirewalledRequest(request);
			}

		};
		FirewalledEndpointResolver resolver = FirewalledEndpointResolver.of(byHost, HANDLER);
		MockHttpServletRequest known = mock("GET", "/api/things/1", "/api/things/1");
		known.setServerName("api.example.com");
		MockHttpServletRequest other = mock("GET", "/api/things/1", "/api/things/1");
		other.setServerName("evil.example.com");
		assertThat(resolver.resolve(new ServletRateLimitRequest(known))).isEqualTo(THINGS);
		assertThat(resolver.resolve(new ServletRateLimitRequest(other))).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(resolver.resolve(new ServletRateLimitRequest(known))).isEqualTo(THINGS);
	}

	@Test
	void rejectedRequestNeverReachesEndpointResolution() {
		// Spring MVC cannot parse every path the firewall rejects (a malformed escape, say).
		FirewalledEndpointResolver resolver = FirewalledEndpointResolver.withDefaultFirewall((request) -> {
			throw new IllegalArgumentException("unparsable path");
		});
		assertThat(resolver.resolve(request("GET", "/api/things/%ZZ", "/api/things/%ZZ"))).isEqualTo(EndpointTemplate.UNKNOWN);
	}

	private static ServletRateLimitRequest request(String method, String uri, String servletPath) {
		return new ServletRateLimitRequest(mock(method, uri, servletPath));
	}

	private static MockHttpServletRequest mock(String method, String uri, String servletPath) {
		MockHttpServletRequest request = new MockHttpServletRequest(method, uri);
		request.setServletPath(servletPath);
		return request;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class ThingsConfiguration {

		@Bean
		Things things() {
			return new Things();
		}

	}

	@RestController
	static class Things {

		@GetMapping("/api/things/{id}")
		String thing(@PathVariable String id) {
			return id;
		}

	}

}
