package io.ratelimit.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The response fields of SPEC-HTTP §1, row by row of its worked example (rps=10, beta=2:
 * C=20, w=2, policy "default"), on exact header strings.
 */
class DecisionHeadersTest {

	private static final EndpointTemplate LIGHT = EndpointTemplate.of("GET", "/api/products");

	private static final EndpointTemplate HEAVY = EndpointTemplate.of("POST", "/api/orders");

	private static final EndpointResolver ENDPOINTS = (request) -> request.path().equals("/api/orders") ? HEAVY : LIGHT;

	private final FakeTimeSource time = new FakeTimeSource();

	private RateLimiter limiter(String rps, String burstFactor, boolean legacy, List<PolicyRow> rows) {
		PolicySettings settings = PolicySettings.of(new BigDecimal(rps), BigDecimal.ONE, new BigDecimal(burstFactor));
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows, settings, this.time);
		policies.reload();
		return RateLimiter.builder(ENDPOINTS, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(1000, this.time))
			.weights(EndpointWeights.of(Map.of(HEAVY, 5)))
			.legacyHeaders(legacy)
			.build();
	}

	private RateLimiter limiter(String rps, String burstFactor) {
		return limiter(rps, burstFactor, false, List.of());
	}

	private static Map<String, String> headers(Decision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		decision.forEachHeader(headers::put);
		return headers;
	}

	private static TestRequest light() {
		return TestRequest.get("/api/products");
	}

	private static TestRequest heavy() {
		return TestRequest.of("POST", "/api/orders");
	}

	@Test
	void evaluateWhenBucketFullAndWeightOneThenRemainingNineteenAndResetOne() {
		Decision decision = limiter("10", "2").evaluate(light());

		assertThat(decision.outcome()).isEqualTo(Decision.Outcome.ALLOWED);
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=20;w=2"),
				Map.entry("RateLimit", "\"default\";r=19;t=1"));
	}

	@Test
	void evaluateWhenTwelvePointThreeFiveTokensAndWeightFiveThenRemainingSeven() {
		RateLimiter limiter = limiter("10", "2");
		limiter.evaluate(heavy());
		limiter.evaluate(heavy());
		this.time.advanceMillis(235); // 10 + 2.35 tokens

		Decision decision = limiter.evaluate(heavy());

		assertThat(decision.outcome()).isEqualTo(Decision.Outcome.ALLOWED);
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=20;w=2"),
				Map.entry("RateLimit", "\"default\";r=7;t=1"));
	}

	@Test
	void evaluateWhenThreePointTwoTokensAndWeightFiveThenRejectedAndNothingConsumed() {
		RateLimiter limiter = limiter("10", "2");
		for (int i = 0; i < 4; i++) {
			limiter.evaluate(heavy()); // 20 -> 0
		}
		this.time.advanceMillis(320); // 3.2 tokens

		Decision decision = limiter.evaluate(heavy());

		assertThat(decision.isRejected()).isTrue();
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=20;w=2"),
				Map.entry("RateLimit", "\"default\";r=3;t=1"),
				Map.entry("Retry-After", "1"));
		// Tokens stayed at 3.2: 1.8 more arrive in 180 ms, not a millisecond earlier.
		this.time.advanceMillis(179);
		assertThat(limiter.evaluate(heavy()).isRejected()).isTrue();
		this.time.advanceMillis(1);
		assertThat(headers(limiter.evaluate(heavy()))).containsEntry("RateLimit", "\"default\";r=0;t=1");
	}

	@Test
	void evaluateWhenPointFourTokensAndWeightOneThenRejectedWithRemainingZero() {
		RateLimiter limiter = limiter("10", "2");
		for (int i = 0; i < 20; i++) {
			assertThat(limiter.evaluate(light()).isRejected()).isFalse();
		}
		this.time.advanceMillis(40); // 0.4 tokens

		Decision decision = limiter.evaluate(light());

		assertThat(decision.isRejected()).isTrue();
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=20;w=2"),
				Map.entry("RateLimit", "\"default\";r=0;t=1"),
				Map.entry("Retry-After", "1"));
	}

	@Test
	void evaluateWhenHalfRequestPerSecondThenRetryAfterRoundsThreePointSixUpToFour() {
		RateLimiter limiter = limiter("0.5", "10"); // C=5, w=10
		limiter.evaluate(heavy()); // 5 -> 0
		this.time.advance(Duration.ofMillis(6400)); // 3.2 tokens

		Decision decision = limiter.evaluate(heavy());

		assertThat(decision.isRejected()).isTrue();
		assertThat(decision.retryAfterSeconds()).isEqualTo(4);
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=5;w=10"),
				Map.entry("RateLimit", "\"default\";r=3;t=4"),
				Map.entry("Retry-After", "4"));
	}

	@Test
	void evaluateWhenRefillIsSlowThenResetIsTheSecondsUntilTheNextWholeToken() {
		RateLimiter limiter = limiter("0.5", "10"); // C=5: one token every 2 s
		assertThat(headers(limiter.evaluate(light()))).containsEntry("RateLimit", "\"default\";r=4;t=2");
		this.time.advanceMillis(1500); // 4.75 tokens, 3.75 after this request: the next is 0.5 s away
		assertThat(headers(limiter.evaluate(light()))).containsEntry("RateLimit", "\"default\";r=3;t=1");
	}

	@Test
	void evaluateWhenLegacyHeadersEnabledThenAddsLimitRemainingAndEpochReset() {
		Decision decision = limiter("10", "2", true, List.of()).evaluate(light());

		long nowSeconds = this.time.now().getEpochSecond();
		assertThat(headers(decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=20;w=2"),
				Map.entry("RateLimit", "\"default\";r=19;t=1"),
				Map.entry("X-RateLimit-Limit", "20"),
				Map.entry("X-RateLimit-Remaining", "19"),
				Map.entry("X-RateLimit-Reset", Long.toString(nowSeconds + 1)));
	}

	@Test
	void evaluateWhenPolicyIsForTheEndpointThenFieldsNameTheEndpoint() {
		RateLimiter limiter = limiter("10", "2", false,
				List.of(new PolicyRow("1", "GET /api/products", null, new BigDecimal("3"), "ENFORCE")));

		assertThat(headers(limiter.evaluate(light()))).containsExactly(
				Map.entry("RateLimit-Policy", "\"GET /api/products\";q=6;w=2"),
				Map.entry("RateLimit", "\"GET /api/products\";r=5;t=1"));
	}

	@Test
	void evaluateWhenShadowPolicyExceededThenPassesWithoutFields() {
		RateLimiter limiter = limiter("10", "2", false,
				List.of(new PolicyRow("1", "GET /api/products", null, new BigDecimal("1"), "shadow")));
		limiter.evaluate(light());
		limiter.evaluate(light());

		Decision decision = limiter.evaluate(light());

		assertThat(decision.outcome()).isEqualTo(Decision.Outcome.SHADOW_REJECTED);
		assertThat(decision.isRejected()).isFalse();
		assertThat(headers(decision)).isEmpty();
		assertThat(decision.retryAfter()).isNull();
	}

	@Test
	void evaluateWhenPolicyOffThenNeverRejectedAndNoFields() {
		RateLimiter limiter = limiter("10", "2", false,
				List.of(new PolicyRow("1", "GET /api/products", null, new BigDecimal("1"), "OFF")));

		for (int i = 0; i < 100; i++) {
			Decision decision = limiter.evaluate(light());
			assertThat(decision.outcome()).isEqualTo(Decision.Outcome.ALLOWED);
			assertThat(headers(decision)).isEmpty();
		}
	}

}
