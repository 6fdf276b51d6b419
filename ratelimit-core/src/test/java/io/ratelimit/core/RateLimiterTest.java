package io.ratelimit.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.ClientIpResolver;
import io.ratelimit.core.identity.ForwardingHeader;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.IpRange;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The whole pipeline through {@link RateLimiter#evaluate}: which bucket a request is
 * charged to, and which policy applies.
 */
class RateLimiterTest {

	private static final EndpointTemplate PRODUCTS = EndpointTemplate.of("GET", "/api/products");

	private static final EndpointTemplate REPORTS = EndpointTemplate.of("GET", "/api/reports/*");

	private static final String ACME_KEY = "ak_acme_0123456789";

	private static final KeyedHasher KEY_HASHER = KeyedHasher.withSecret("the-api-key-hashing-secret-32by");

	/** Maps the two known paths; everything else is UNKNOWN. */
	private static final EndpointResolver ENDPOINTS = (request) -> switch (request.path()) {
		case "/api/products" -> PRODUCTS;
		case "/api/reports/1", "/api/reports/2" -> REPORTS;
		default -> EndpointTemplate.UNKNOWN;
	};

	private final FakeTimeSource time = new FakeTimeSource();

	/** Counts requests whose identity was asked for: every identity starts with this tier. */
	private final AtomicInteger identityWork = new AtomicInteger();

	private RateLimiter limiter(List<PolicyRow> rows) {
		PolicySettings settings = PolicySettings.of(new BigDecimal("5"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows, settings, this.time);
		policies.reload();
		String hash = KEY_HASHER.hashHex(ACME_KEY);
		IdentityResolver identities = IdentityResolver.builder()
			.timeSource(this.time)
			.clientIp(new ClientIpResolver(List.of(IpRange.parse("10.0.0.0/8")), ForwardingHeader.X_FORWARDED_FOR, 32,
					64))
			.authenticatedPrincipals((request) -> {
				this.identityWork.incrementAndGet();
				return null;
			})
			.apiKeys(keys(new ApiKey(hash, "acme-service", "acme", true)), KEY_HASHER)
			.build();
		return RateLimiter.builder(ENDPOINTS, policies)
			.identities(identities)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(10_000, this.time))
			.weights(EndpointWeights.of(Map.of(REPORTS, 5)))
			.build();
	}

	private ReloadableApiKeys keys(ApiKey... keys) {
		ReloadableApiKeys loaded = new ReloadableApiKeys((limit) -> List.of(keys), 100, this.time);
		loaded.reload();
		return loaded;
	}

	private static int admitted(RateLimiter limiter, int attempts, TestRequest request) {
		int admitted = 0;
		for (int i = 0; i < attempts; i++) {
			if (!limiter.evaluate(request).isRejected()) {
				admitted++;
			}
		}
		return admitted;
	}

	@Test
	void evaluateWhenAnonymousClientsThenEachNetworkHasItsOwnBucket() {
		RateLimiter limiter = limiter(List.of());

		assertThat(admitted(limiter, 20, TestRequest.get("/api/products").from("198.51.100.1"))).isEqualTo(10);
		assertThat(admitted(limiter, 20, TestRequest.get("/api/products").from("198.51.100.2"))).isEqualTo(10);
	}

	@Test
	void evaluateWhenEndpointsDifferThenBucketsAreSeparate() {
		RateLimiter limiter = limiter(List.of());
		admitted(limiter, 20, TestRequest.get("/api/products"));

		assertThat(limiter.evaluate(TestRequest.get("/api/reports/1")).isRejected()).isFalse();
	}

	@Test
	void evaluateWhenWeightedEndpointThenEachRequestCostsItsWeight() {
		RateLimiter limiter = limiter(List.of()); // capacity 10, weight 5

		assertThat(admitted(limiter, 5, TestRequest.get("/api/reports/1"))).isEqualTo(2);
		// Both report ids are one endpoint, so one bucket.
		assertThat(limiter.evaluate(TestRequest.get("/api/reports/2")).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenApiKeyUsedFromManyAddressesThenOneBudget() {
		RateLimiter limiter = limiter(List.of());
		int admitted = 0;
		for (int i = 0; i < 50; i++) {
			Decision decision = limiter.evaluate(
					TestRequest.get("/api/products").from("198.51.100." + i).header("X-API-Key", ACME_KEY));
			admitted += decision.isRejected() ? 0 : 1;
		}

		assertThat(admitted).isEqualTo(10);
	}

	@Test
	void evaluateWhenRandomApiKeysFromOneAddressThenLimitedAsThatAddress() {
		RateLimiter limiter = limiter(List.of());
		int admitted = 0;
		for (int i = 0; i < 50; i++) {
			Decision decision = limiter
				.evaluate(TestRequest.get("/api/products").from("198.51.100.9").header("X-API-Key", "fake-" + i));
			admitted += decision.isRejected() ? 0 : 1;
		}

		assertThat(admitted).isEqualTo(10);
	}

	@Test
	void evaluateWhenTenantHasOverrideThenItsKeyGetsTheTenantPolicy() {
		RateLimiter limiter = limiter(List.of(new PolicyRow("1", "GET /api/products", "acme", new BigDecimal("50"), null)));

		Decision decision = limiter.evaluate(TestRequest.get("/api/products").header("X-API-Key", ACME_KEY));

		assertThat(decision.policy().origin()).isEqualTo("row 1");
		assertThat(decision.remaining()).isEqualTo(99);
		assertThat(limiter.evaluate(TestRequest.get("/api/products")).policy().isBuiltIn()).isTrue();
	}

	@Test
	void evaluateWhenRandomPathsThenAllShareTheUnknownBucketOfTheClient() {
		RateLimiter limiter = limiter(List.of()); // UNKNOWN: 2 rps, capacity 4
		int admitted = 0;
		for (int i = 0; i < 100; i++) {
			Decision decision = limiter.evaluate(TestRequest.get("/random/" + i).header("X-API-Key", ACME_KEY));
			assertThat(decision.endpoint()).isEqualTo(EndpointTemplate.UNKNOWN);
			admitted += decision.isRejected() ? 0 : 1;
		}

		assertThat(admitted).isEqualTo(4);
		assertThat(limiter.buckets().stats().entries()).isEqualTo(1);
		// No credential work for unknown endpoints.
		assertThat(this.identityWork).hasValue(0);
	}

	@Test
	void evaluateWhenUnknownEndpointsRejectedButRequestServedThenLimitedAsUnknown() {
		PolicySettings settings = PolicySettings.of(new BigDecimal("5"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(List::of, settings, this.time);
		RateLimiter limiter = RateLimiter.builder((request) -> EndpointTemplate.SERVED_UNKNOWN, policies)
			.buckets(LocalBucketStore.create(100, this.time))
			.rejectUnknownEndpoints(true)
			.build();

		Decision decision = limiter.evaluate(TestRequest.get("/site.css"));

		assertThat(decision.outcome()).isEqualTo(Decision.Outcome.ALLOWED);
		assertThat(decision.endpoint()).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(decision.policy().endpoint()).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(decision.hasHeaders()).isTrue();
	}

	@Test
	void evaluateWhenUnknownEndpointsRejectedThenRefusedWithoutBucketOrIdentityWork() {
		PolicySettings settings = PolicySettings.of(new BigDecimal("5"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(List::of, settings, this.time);
		IdentityResolver identities = IdentityResolver.builder().authenticatedPrincipals((request) -> {
			this.identityWork.incrementAndGet();
			return null;
		}).apiKeys(keys(), KEY_HASHER).build();
		RateLimiter limiter = RateLimiter.builder(ENDPOINTS, policies)
			.identities(identities)
			.buckets(LocalBucketStore.create(100, this.time))
			.rejectUnknownEndpoints(true)
			.build();

		for (int i = 0; i < 100; i++) {
			Decision decision = limiter.evaluate(TestRequest.get("/random/" + i).header("X-API-Key", "k" + i));
			assertThat(decision.outcome()).isEqualTo(Decision.Outcome.UNKNOWN_ENDPOINT);
			assertThat(decision.isRejected()).isFalse();
			assertThat(decision.hasHeaders()).isFalse();
		}

		assertThat(limiter.buckets().stats().entries()).isZero();
		assertThat(this.identityWork).hasValue(0);
		assertThat(limiter.evaluate(TestRequest.get("/api/products")).outcome()).isEqualTo(Decision.Outcome.ALLOWED);
	}

	@Test
	void evaluateWhenBehindTrustedProxyThenRealClientChargedAndSpoofingIgnored() {
		RateLimiter limiter = limiter(List.of());
		TestRequest viaProxy = TestRequest.get("/api/products").from("10.0.0.2").header("X-Forwarded-For", "203.0.113.7");

		assertThat(admitted(limiter, 20, viaProxy)).isEqualTo(10);
		assertThat(admitted(limiter, 20, TestRequest.get("/api/products")
			.from("10.0.0.2")
			.header("X-Forwarded-For", "203.0.113.8"))).isEqualTo(10);
		// An untrusted peer claiming to be a fresh client is still itself.
		int spoofed = 0;
		for (int i = 0; i < 20; i++) {
			TestRequest request = TestRequest.get("/api/products")
				.from("198.51.100.66")
				.header("X-Forwarded-For", "203.0.113." + i);
			spoofed += limiter.evaluate(request).isRejected() ? 0 : 1;
		}
		assertThat(spoofed).isEqualTo(10);
	}

	@Test
	void evaluateWhenPolicyReloadedThenExistingBucketsAdoptNewLimit() {
		List<PolicyRow> rows = new ArrayList<>();
		PolicySettings settings = PolicySettings.of(new BigDecimal("5"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(() -> List.copyOf(rows), settings, this.time);
		RateLimiter limiter = RateLimiter.builder(ENDPOINTS, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(100, this.time))
			.build();
		assertThat(admitted(limiter, 20, TestRequest.get("/api/products"))).isEqualTo(10);

		this.time.advance(Duration.ofSeconds(1)); // 5 tokens back at the old rate
		rows.add(new PolicyRow("1", "GET /api/products", null, new BigDecimal("100"), null));
		policies.reload();

		// The bucket keeps the tokens it had, then refills at the new rate.
		assertThat(admitted(limiter, 200, TestRequest.get("/api/products"))).isEqualTo(5);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(admitted(limiter, 300, TestRequest.get("/api/products"))).isEqualTo(100);
	}

	@Test
	void evaluateWhenPolicyIsGlobalThenItsBucketsLiveInTheGlobalStore() {
		PolicySettings settings = PolicySettings.of(new BigDecimal("5"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(
				() -> List.of(new PolicyRow("1", "GET /api/reports/*", null, BigDecimal.TEN, null, "GLOBAL")), settings,
				this.time);
		policies.reload();
		LocalBucketStore local = LocalBucketStore.create(100, this.time);
		LocalBucketStore global = LocalBucketStore.create(100, this.time);
		RateLimiter limiter = RateLimiter.builder(ENDPOINTS, policies)
			.buckets(local)
			.globalBuckets(global)
			.timeSource(this.time)
			.build();

		// A key's bucket is created by its second request.
		limiter.evaluate(TestRequest.get("/api/reports/1"));
		limiter.evaluate(TestRequest.get("/api/reports/1"));
		assertThat(global.stats().entries()).isEqualTo(1);
		assertThat(local.stats().entries()).isZero();

		limiter.evaluate(TestRequest.get("/api/products"));
		limiter.evaluate(TestRequest.get("/api/products"));
		assertThat(local.stats().entries()).isEqualTo(1);
		assertThat(global.stats().entries()).isEqualTo(1);
	}

	@Test
	void buildWhenWeightExceedsBuiltInCapacityThenConfigurationError() {
		PolicySettings settings = PolicySettings.of(BigDecimal.ONE, BigDecimal.ONE, BigDecimal.ONE);
		ReloadablePolicies policies = new ReloadablePolicies(List::of, settings, this.time);

		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiter.builder(ENDPOINTS, policies).weights(EndpointWeights.of(Map.of(REPORTS, 5))).build())
			.withMessageContaining("The weight 5 of 'GET /api/reports/*' exceeds the capacity 1");
	}

	@Test
	void evaluateWhenRowWeightExceedsRowCapacityThenCapacityRaisedSoRequestsCanPass() {
		RateLimiter limiter = limiter(List.of(new PolicyRow("1", "GET /api/reports/*", null, new BigDecimal("1"), null)));

		Decision decision = limiter.evaluate(TestRequest.get("/api/reports/1"));

		assertThat(decision.isRejected()).isFalse();
		assertThat(decision.rateLimitPolicy()).isEqualTo("\"GET /api/reports/*\";q=5;w=5");
	}

}
