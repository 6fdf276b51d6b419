package io.ratelimit.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dual-bucket control of DESIGN.md 3.6: a login must pass both the client's bucket and
 * the submitted identifier's.
 */
class SensitiveEndpointTest {

	private static final EndpointTemplate LOGIN = EndpointTemplate.of("POST", "/api/login");

	private static final EndpointResolver ENDPOINTS = (request) -> LOGIN;

	private final FakeTimeSource time = new FakeTimeSource();

	/** Login at 1 rps, burst factor 3: three attempts per bucket, then one a second. */
	private RateLimiter limiter() {
		PolicySettings settings = PolicySettings.of(BigDecimal.TEN, BigDecimal.ONE, BigDecimal.valueOf(3));
		ReloadablePolicies policies = new ReloadablePolicies(
				() -> List.of(new PolicyRow("1", "POST /api/login", null, BigDecimal.ONE, null)), settings, this.time);
		policies.reload();
		return RateLimiter.builder(ENDPOINTS, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(1000, this.time))
			.sensitiveEndpoint(LOGIN, (request) -> SubmittedIdentifier.of(request.header("X-User")))
			.build();
	}

	private static TestRequest login(String from, String user) {
		TestRequest request = TestRequest.of("POST", "/api/login").from(from);
		return (user != null) ? request.header("X-User", user) : request;
	}

	private static Map<String, String> headers(Decision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		decision.forEachHeader(headers::put);
		return headers;
	}

	@Test
	void evaluateWhenOneAddressTriesManyAccountsThenItsOwnBucketStopsIt() {
		RateLimiter limiter = limiter();
		int admitted = 0;
		for (int i = 0; i < 20; i++) {
			admitted += limiter.evaluate(login("198.51.100.1", "user" + i)).isRejected() ? 0 : 1;
		}

		assertThat(admitted).isEqualTo(3);
	}

	@Test
	void evaluateWhenManyAddressesTryOneAccountThenTheIdentifierBucketStopsThem() {
		RateLimiter limiter = limiter();
		int admitted = 0;
		for (int i = 0; i < 20; i++) {
			admitted += limiter.evaluate(login("198.51.100." + i, "victim")).isRejected() ? 0 : 1;
		}

		assertThat(admitted).isEqualTo(3);
		// Spelling variants are the same account.
		assertThat(limiter.evaluate(login("203.0.113.9", "  VICTIM ")).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenRefusedByOneBucketThenTheOtherIsNotCharged() {
		RateLimiter limiter = limiter();
		for (int i = 0; i < 3; i++) {
			limiter.evaluate(login("198.51.100." + i, "victim")); // drains victim's bucket
		}

		// The victim's bucket refuses, so the client's attempt costs it nothing ...
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.evaluate(login("203.0.113.1", "victim")).isRejected()).isTrue();
		}
		// ... and the client still has its three attempts for other accounts.
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.evaluate(login("203.0.113.1", "other" + i)).isRejected()).isFalse();
		}
	}

	@Test
	void evaluateWhenIdentifierUnreadableThenChargedToOneBucketSharedByEveryClient() {
		RateLimiter limiter = limiter();
		int admitted = 0;
		for (int i = 0; i < 10; i++) {
			admitted += limiter.evaluate(login("198.51.100." + i, null)).isRejected() ? 0 : 1;
		}
		// Unreadable from ten addresses: one bucket's worth, not ten.
		assertThat(admitted).isEqualTo(3);
		// Readable attempts of another account are not held back by it.
		assertThat(limiter.evaluate(login("198.51.100.20", "someone")).isRejected()).isFalse();
	}

	@Test
	void evaluateWhenExtractorFailsThenCheckStillApplies() {
		PolicySettings settings = PolicySettings.of(BigDecimal.ONE, BigDecimal.ONE, BigDecimal.ONE);
		ReloadablePolicies policies = new ReloadablePolicies(List::of, settings, this.time);
		RateLimiter limiter = RateLimiter.builder(ENDPOINTS, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(100, this.time))
			.sensitiveEndpoint(LOGIN, (request) -> {
				throw new IllegalStateException("body unreadable");
			})
			.build();

		assertThat(limiter.evaluate(login("198.51.100.1", "x")).isRejected()).isFalse();
		assertThat(limiter.evaluate(login("198.51.100.1", "x")).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenBothBucketsListedThenFieldsNameEachAndRetryAfterIsTheLongestWait() {
		RateLimiter limiter = limiter();
		Decision first = limiter.evaluate(login("198.51.100.1", "alice"));
		assertThat(headers(first)).containsExactly(
				Map.entry("RateLimit-Policy",
						"\"POST /api/login\";q=3;w=3, \"POST /api/login identifier\";q=3;w=3"),
				Map.entry("RateLimit", "\"POST /api/login\";r=2;t=1, \"POST /api/login identifier\";r=2;t=1"));

		limiter.evaluate(login("198.51.100.1", "alice"));
		limiter.evaluate(login("198.51.100.1", "alice"));
		this.time.advance(Duration.ofMillis(500));
		Decision refused = limiter.evaluate(login("198.51.100.1", "alice"));

		assertThat(refused.isRejected()).isTrue();
		assertThat(headers(refused)).containsEntry("Retry-After", "1")
			.containsEntry("RateLimit", "\"POST /api/login\";r=0;t=1, \"POST /api/login identifier\";r=0;t=1");
	}

	@Test
	void evaluateWhenOnlyIdentifierRefusesThenClientQuotaShowsItsTokensGivenBack() {
		RateLimiter limiter = limiter();
		for (int i = 0; i < 3; i++) {
			limiter.evaluate(login("198.51.100." + i, "victim"));
		}

		Decision refused = limiter.evaluate(login("203.0.113.1", "victim"));

		assertThat(headers(refused)).containsEntry("RateLimit",
				"\"POST /api/login\";r=3;t=0, \"POST /api/login identifier\";r=0;t=1");
	}

}
