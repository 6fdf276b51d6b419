package io.ratelimit.autoconfigure.web;

import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.ratelimit.autoconfigure.RateLimitProperties.FailureMode;
import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The permits of a request under an in-flight limit go back whatever throws once they are
 * taken: a listener as well as the application.
 */
class RateLimitFilterInFlightReleaseTest {

	private static final EndpointTemplate ITEMS = EndpointTemplate.of("GET", "/api/items");

	private final LocalPermitStore permits = LocalPermitStore.create(100);

	private RateLimiter limiter() {
		// At most one request in progress per caller, across the API.
		List<PolicyRow> rows = List.of(new PolicyRow("1", "default", null, null, null, null, "in-flight", "API", null,
				1L, null, null, "IN_FLIGHT"));
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows,
				PolicySettings.of(new BigDecimal("1000"), BigDecimal.ONE, BigDecimal.ONE), TimeSource.system());
		assertThat(policies.reload().succeeded()).isTrue();
		return RateLimiter.builder((request) -> ITEMS, policies)
			.buckets(LocalBucketStore.create(100))
			.permits(this.permits)
			.build();
	}

	private static MockHttpServletResponse send(RateLimitFilter filter) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
		request.setRemoteAddr("203.0.113.7");
		MockHttpServletResponse response = new MockHttpServletResponse();
		filter.doFilter(request, response, new MockFilterChain());
		return response;
	}

	@Test
	void doFilterWhenListenerThrowsAfterThePermitIsTakenThenThePermitGoesBack() throws Exception {
		AtomicBoolean thrown = new AtomicBoolean();
		RateLimitFilterListener throwingOnce = new RateLimitFilterListener() {

			@Override
			public void onDecision(HttpServletRequest request, Decision decision) {
				if (thrown.compareAndSet(false, true)) {
					throw new IllegalStateException("listener broken on purpose");
				}
			}

		};
		RateLimitFilter filter = new RateLimitFilter(limiter(), FailureMode.OPEN, throwingOnce);

		assertThatIllegalStateException().isThrownBy(() -> send(filter));

		assertThat(send(filter).getStatus()).as("the first request's permit is back").isEqualTo(200);
		assertThat(send(filter).getStatus()).isEqualTo(200);
	}

}
