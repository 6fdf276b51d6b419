package io.ratelimit.autoconfigure.web;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import io.ratelimit.core.LoginAttempt;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TestRequest;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.DeviceTokens;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How an answered login attempt is judged and how its device token reaches the client.
 */
class LoginOutcomesTest {

	private static final EndpointTemplate LOGIN = EndpointTemplate.of("POST", "/login");

	private final RateLimiter limiter = RateLimiter
		.builder((request) -> LOGIN,
				new ReloadablePolicies(List::of,
						PolicySettings.of(BigDecimal.TEN, BigDecimal.ONE, BigDecimal.valueOf(2)), TimeSource.system()))
		.sensitiveEndpoint(LOGIN, (request) -> SubmittedIdentifier.of(request.header("X-User")))
		.trustedDevices(new DeviceTokens(KeyedHasher.withSecret("a-device-token-secret-for-tests"),
				Duration.ofDays(1), TimeSource.system()), "RateLimit-Device", "ratelimit_device")
		.build();

	private LoginAttempt attempt() {
		return this.limiter.evaluate(TestRequest.of("POST", "/login").from("203.0.113.1").header("X-User", "alice"))
			.attempt();
	}

	private static MockHttpServletResponse answer(LoginOutcomes outcomes, LoginAttempt attempt, FilterChain app)
			throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		outcomes.run(attempt, new MockHttpServletRequest("POST", "/login"), response, app);
		return response;
	}

	@Test
	void runWhenApplicationSucceedsThenTokenInTheHeaderAndBodyWhole() throws Exception {
		LoginOutcomes outcomes = LoginOutcomes.of(List.of("200-299")).withHeader("RateLimit-Device");

		MockHttpServletResponse response = answer(outcomes, attempt(), (request, res) -> {
			res.getWriter().write("welcome");
			res.flushBuffer();
		});

		assertThat(response.getHeader("RateLimit-Device")).hasSize(DeviceTokens.TOKEN_LENGTH);
		assertThat(response.getContentAsString()).isEqualTo("welcome");
	}

	@Test
	void runWhenApplicationRefusesThenNoToken() throws Exception {
		LoginOutcomes outcomes = LoginOutcomes.of(List.of("200-299")).withHeader("RateLimit-Device");

		MockHttpServletResponse refused = answer(outcomes, attempt(),
				(request, res) -> ((HttpServletResponse) res).setStatus(401));
		MockHttpServletResponse error = answer(outcomes, attempt(),
				(request, res) -> ((HttpServletResponse) res).sendError(403));

		assertThat(refused.getHeader("RateLimit-Device")).isNull();
		assertThat(error.getHeader("RateLimit-Device")).isNull();
		assertThat(error.getStatus()).isEqualTo(403);
	}

	@Test
	void runWhenApplicationRedirectsOnSuccessThenCookieSetBeforeTheRedirectCommits() throws Exception {
		LoginOutcomes outcomes = LoginOutcomes.of(List.of("200-299", "302"))
			.withCookie("ratelimit_device", true, "Strict", "/", Duration.ofDays(1));

		MockHttpServletResponse response = answer(outcomes, attempt(),
				(request, res) -> ((HttpServletResponse) res).sendRedirect("/home"));

		assertThat(response.getRedirectedUrl()).isEqualTo("/home");
		assertThat(response.getHeader("Set-Cookie")).startsWith("ratelimit_device=")
			.contains("Max-Age=86400", "Secure", "HttpOnly", "SameSite=Strict");
	}

	@Test
	void ofWhenEntryIsNoStatusOrRangeThenNamesIt() {
		for (String entry : List.of("2xx", "99", "600", "300-200", "")) {
			assertThatIllegalArgumentException().isThrownBy(() -> LoginOutcomes.of(List.of(entry)))
				.withMessageContaining("'" + entry + "'");
		}
	}

}
