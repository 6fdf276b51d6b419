package io.ratelimit.autoconfigure.web;

import java.math.BigDecimal;
import java.util.List;

import io.ratelimit.autoconfigure.RateLimitProperties.FailureMode;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter decides a request once, on its REQUEST dispatch, wherever it is registered:
 * its forwards, includes, error and async dispatches reach the application uncharged and
 * without fields.
 */
class RateLimitFilterDispatchTest {

	private static final EndpointTemplate ITEMS = EndpointTemplate.of("GET", "/api/items");

	/** One token a second and a burst of one: a second charge within the second is refused. */
	private final RateLimitFilter filter = new RateLimitFilter(oneTokenLimiter(), FailureMode.OPEN,
			RateLimitFilterListener.NONE);

	private static RateLimiter oneTokenLimiter() {
		ReloadablePolicies policies = new ReloadablePolicies(List::of,
				PolicySettings.of(BigDecimal.ONE, BigDecimal.ONE, BigDecimal.ONE), TimeSource.system());
		policies.reload();
		return RateLimiter.builder((request) -> ITEMS, policies).buckets(LocalBucketStore.create(100)).build();
	}

	private MockHttpServletResponse dispatch(DispatcherType type, MockFilterChain chain) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
		request.setRemoteAddr("203.0.113.7");
		request.setDispatcherType(type);
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(request, response, chain);
		return response;
	}

	@Test
	void doFilterWhenRequestDispatchThenCharged() throws Exception {
		MockHttpServletResponse first = dispatch(DispatcherType.REQUEST, new MockFilterChain());
		MockHttpServletResponse second = dispatch(DispatcherType.REQUEST, new MockFilterChain());

		assertThat(first.getStatus()).isEqualTo(200);
		assertThat(first.getHeader("RateLimit")).isEqualTo("\"default\";r=0;t=1");
		assertThat(second.getStatus()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(value = DispatcherType.class, names = "REQUEST", mode = EnumSource.Mode.EXCLUDE)
	void doFilterWhenOtherDispatchThenPassesUnchargedWithoutFields(DispatcherType type) throws Exception {
		MockFilterChain chain = new MockFilterChain();

		MockHttpServletResponse passed = dispatch(type, chain);
		MockHttpServletResponse request = dispatch(DispatcherType.REQUEST, new MockFilterChain());

		assertThat(chain.getRequest()).as("reached the application").isNotNull();
		assertThat(passed.getStatus()).isEqualTo(200);
		assertThat(passed.getHeaderNames()).doesNotContain("RateLimit", "RateLimit-Policy");
		assertThat(request.getStatus()).as("the one token still there").isEqualTo(200);
		assertThat(request.getHeader("RateLimit")).isEqualTo("\"default\";r=0;t=1");
	}

}
