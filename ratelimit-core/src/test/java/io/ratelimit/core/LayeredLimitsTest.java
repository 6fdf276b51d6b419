package io.ratelimit.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.EndpointGroups;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Layered limits through {@link RateLimiter#evaluate}: a request charged to its endpoint's
 * own limit and to limits per endpoint, per group of endpoints and across the API, all or
 * nothing, with every limit in the response fields.
 */
class LayeredLimitsTest {

	private static final EndpointTemplate REPOS = EndpointTemplate.of("GET", "/api/repos");

	private static final EndpointTemplate ISSUES = EndpointTemplate.of("POST", "/api/issues");

	private static final EndpointTemplate SETTINGS_ENDPOINT = EndpointTemplate.of("PUT", "/api/settings");

	private static final EndpointTemplate LOGIN = EndpointTemplate.of("POST", "/api/login");

	private static final String ACME_KEY = "ak_acme_0123456789";

	private static final KeyedHasher KEY_HASHER = KeyedHasher.withSecret("the-api-key-hashing-secret-32by");

	private static final EndpointResolver ENDPOINTS = (request) -> switch (request.method() + " " + request.path()) {
		case "GET /api/repos" -> REPOS;
		case "POST /api/issues" -> ISSUES;
		case "PUT /api/settings" -> SETTINGS_ENDPOINT;
		case "POST /api/login" -> LOGIN;
		default -> EndpointTemplate.UNKNOWN;
	};

	private final FakeTimeSource time = new FakeTimeSource();

	private final List<PolicyRow> rows = new ArrayList<>();

	private RateLimiter limiter() {
		return limiter(UnaryOperator.identity());
	}

	private RateLimiter limiter(UnaryOperator<RateLimiter.Builder> customizer) {
		// A generous built-in default (1000/s, burst 2): only the rows under test bind.
		PolicySettings settings = PolicySettings.of(new BigDecimal("1000"), new BigDecimal("2"), BigDecimal.valueOf(2))
			.withGroups(EndpointGroups.of(Map.of("content", Set.of(ISSUES))));
		ReloadablePolicies policies = new ReloadablePolicies(() -> this.rows, settings, this.time);
		assertThat(policies.reload().succeeded()).isTrue();
		assertThat(policies.current().rejected()).isEmpty();
		ReloadableApiKeys keys = new ReloadableApiKeys(
				(limit) -> List.of(new ApiKey(KEY_HASHER.hashHex(ACME_KEY), "octocat", "acme", true)), 100, this.time);
		keys.reload();
		IdentityResolver identities = IdentityResolver.builder().timeSource(this.time).apiKeys(keys, KEY_HASHER).build();
		return customizer.apply(RateLimiter.builder(ENDPOINTS, policies)
			.identities(identities)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(10_000, this.time))
			.weights(EndpointWeights.of(Map.of(ISSUES, 5, SETTINGS_ENDPOINT, 5))))
			.build();
	}

	private void row(String endpoint, String tenant, String name, String appliesTo, String group, long count,
			String window, String counts) {
		this.rows.add(PolicyRow.layered(String.valueOf(this.rows.size() + 1), endpoint, tenant, name, appliesTo, group,
				count, window, counts));
	}

	private static TestRequest octocat(String method, String path) {
		return TestRequest.of(method, path).header("X-API-Key", ACME_KEY);
	}

	private static Map<String, String> headers(Decision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		decision.forEachHeader(headers::put);
		return headers;
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
	void evaluateWhenApiWideLimitThenEveryEndpointOfTheIdentityDrawsOnOneBucket() {
		row("default", null, "hourly", "API", null, 10, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 6, octocat("GET", "/api/repos"))).isEqualTo(6);
		assertThat(admitted(limiter, 6, octocat("POST", "/api/issues"))).isEqualTo(4);
		assertThat(limiter.evaluate(TestRequest.get("/api/repos").from("203.0.113.9")).isRejected()).isFalse();
	}

	/**
	 * A client's layered bucket keys are remembered for the limits they were made for: a
	 * reload that leaves a limit as it was leaves its bucket spent, and one that renames it
	 * charges the renamed limit's own bucket.
	 */
	@Test
	void evaluateWhenReloadedThenRememberedKeysFollowTheLimitsInForce() {
		row("default", null, "hourly", "API", null, 3, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isEqualTo(3);

		assertThat(limiter.policies().reload().succeeded()).isTrue();
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isZero();

		this.rows.clear();
		row("default", null, "per-hour", "API", null, 3, "PT1H", "REQUESTS");
		assertThat(limiter.policies().reload().succeeded()).isTrue();
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isEqualTo(3);
		assertThat(admitted(limiter, 5, octocat("POST", "/api/issues"))).isZero();
	}

	@Test
	void evaluateWhenOneLimitRefusesThenNoneIsCharged() {
		row("default", null, "hourly", "API", null, 3, "PT1H", "REQUESTS");
		this.rows.add(new PolicyRow("9", "POST /api/issues", null, new BigDecimal("0.001"), null));
		RateLimiter limiter = limiter();
		// The endpoint's own bucket holds 2 tokens (rate 0.001 x burst 2 is raised to the weight 5): refused.
		Decision refused = limiter.evaluate(octocat("POST", "/api/issues"));
		assertThat(refused.isRejected()).isFalse();
		assertThat(limiter.evaluate(octocat("POST", "/api/issues")).isRejected()).isTrue();

		// The refused request took nothing from the hourly bucket: two of three are left.
		assertThat(admitted(limiter, 3, octocat("GET", "/api/repos"))).isEqualTo(2);
	}

	@Test
	void evaluateWhenGroupLimitThenOnlyTheGroupsEndpointsCountAndByWeight() {
		row("default", null, "content", "GROUP", "content", 10, "PT1M", "POINTS");
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 3, octocat("POST", "/api/issues"))).isEqualTo(2);
		assertThat(admitted(limiter, 20, octocat("GET", "/api/repos"))).isEqualTo(20);
		assertThat(admitted(limiter, 3, octocat("PUT", "/api/settings"))).isEqualTo(3);
	}

	@Test
	void evaluateWhenPointsLimitThenReadsCostOneAndWritesTheirWeight() {
		row("default", null, "points", "API", null, 12, "PT1M", "POINTS");
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 2, octocat("PUT", "/api/settings"))).isEqualTo(2);
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isEqualTo(2);
		this.time.advance(Duration.ofSeconds(5));
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isEqualTo(1);
	}

	@Test
	void evaluateWhenLayeredThenPolicyFieldListsEveryLimitAndRetryAfterIsTheLongestWait() {
		row("default", null, "per-minute", "API", null, 2, "PT1M", "REQUESTS");
		row("default", null, "hourly", "API", null, 2, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();

		Map<String, String> first = headers(limiter.evaluate(octocat("GET", "/api/repos")));
		assertThat(first).containsEntry("RateLimit-Policy",
				"\"default\";q=2000;w=2, \"per-minute\";q=2;w=60, \"hourly\";q=2;w=3600");
		assertThat(first).containsEntry("RateLimit",
				"\"default\";r=1999;t=1, \"per-minute\";r=1;t=30, \"hourly\";r=1;t=1800");
		limiter.evaluate(octocat("GET", "/api/repos"));
		Decision refused = limiter.evaluate(octocat("GET", "/api/repos"));

		assertThat(refused.isRejected()).isTrue();
		assertThat(refused.limitName()).isEqualTo("hourly");
		assertThat(headers(refused)).containsEntry("Retry-After", "1800")
			.containsEntry("RateLimit", "\"default\";r=1998;t=1, \"per-minute\";r=0;t=30, \"hourly\";r=0;t=1800");
	}

	@Test
	void evaluateWhenNoLayeredRowThenFieldsAreTheSingleLimitsOwn() {
		this.rows.add(new PolicyRow("1", "GET /api/repos", null, new BigDecimal("10"), null));
		RateLimiter limiter = limiter();

		assertThat(headers(limiter.evaluate(octocat("GET", "/api/repos")))).containsExactly(
				Map.entry("RateLimit-Policy", "\"GET /api/repos\";q=20;w=2"),
				Map.entry("RateLimit", "\"GET /api/repos\";r=19;t=1"));
	}

	@Test
	void evaluateWhenTenantRowForALimitThenItReplacesTheGlobalRowOfThatLimitOnly() {
		row("default", null, "hourly", "API", null, 2, "PT1H", "REQUESTS");
		row("default", "acme", "hourly", "API", null, 5, "PT1H", "REQUESTS");
		row("default", null, "per-minute", "API", null, 4, "PT1M", "REQUESTS");
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 6, octocat("GET", "/api/repos"))).isEqualTo(4);
		assertThat(admitted(limiter, 6, TestRequest.get("/api/repos"))).isEqualTo(2);
	}

	@Test
	void evaluateWhenEndpointRowForANamedLimitThenItReplacesTheDefaultRowForThatEndpoint() {
		row("default", null, "per-hour", "ENDPOINT", null, 3, "PT1H", "REQUESTS");
		row("PUT /api/settings", null, "per-hour", "ENDPOINT", null, 1, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 5, octocat("PUT", "/api/settings"))).isEqualTo(1);
		assertThat(admitted(limiter, 5, octocat("GET", "/api/repos"))).isEqualTo(3);
		assertThat(admitted(limiter, 5, octocat("POST", "/api/issues"))).isEqualTo(3);
	}

	@Test
	void evaluateWhenTenantRowSwitchesALimitOffThenOnlyThatLimitStopsApplying() {
		row("default", null, "hourly", "API", null, 2, "PT1H", "REQUESTS");
		this.rows.add(new PolicyRow("7", "default", "acme", null, "OFF", null, "hourly", "API", null, 1L, "PT1H", null,
				"REQUESTS"));
		RateLimiter limiter = limiter();

		Decision decision = limiter.evaluate(octocat("GET", "/api/repos"));
		assertThat(admitted(limiter, 10, octocat("GET", "/api/repos"))).isEqualTo(10);
		assertThat(headers(decision)).containsEntry("RateLimit-Policy", "\"default\";q=2000;w=2");
		assertThat(admitted(limiter, 10, TestRequest.get("/api/repos"))).isEqualTo(2);
	}

	@Test
	void evaluateWhenShadowLimitRefusesThenRequestPassesAndEnforcedLimitsAreCharged() {
		this.rows.add(new PolicyRow("1", "default", null, null, "SHADOW", null, "hourly", "API", null, 1L, "PT1H", null,
				"REQUESTS"));
		row("default", null, "per-minute", "API", null, 3, "PT1M", "REQUESTS");
		RateLimiter limiter = limiter();
		limiter.evaluate(octocat("GET", "/api/repos"));

		Decision shadowed = limiter.evaluate(octocat("GET", "/api/repos"));

		assertThat(shadowed.outcome()).isEqualTo(Decision.Outcome.SHADOW_REJECTED);
		assertThat(headers(shadowed)).containsEntry("RateLimit",
				"\"default\";r=1998;t=1, \"per-minute\";r=1;t=20");
		assertThat(limiter.evaluate(octocat("GET", "/api/repos")).outcome()).isEqualTo(Decision.Outcome.SHADOW_REJECTED);
		assertThat(limiter.evaluate(octocat("GET", "/api/repos")).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenEndpointsOwnLimitIsOffThenLayeredLimitsStillApply() {
		this.rows.add(new PolicyRow("1", "GET /api/repos", null, new BigDecimal("1"), "OFF"));
		row("default", null, "hourly", "API", null, 2, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();

		assertThat(headers(limiter.evaluate(octocat("GET", "/api/repos")))).containsEntry("RateLimit-Policy",
				"\"hourly\";q=2;w=3600");
		assertThat(admitted(limiter, 3, octocat("GET", "/api/repos"))).isEqualTo(1);
	}

	@Test
	void evaluateWhenUnknownEndpointThenLayeredLimitsDoNotApply() {
		row("default", null, "hourly", "API", null, 1, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();

		assertThat(headers(limiter.evaluate(TestRequest.get("/nowhere")))).containsEntry("RateLimit-Policy",
				"\"UNKNOWN\";q=4;w=2");
	}

	@Test
	void evaluateWhenSharedBucketSmallerThanAWeightThenItHoldsTheHeaviestForEveryEndpoint() {
		row("default", null, "points", "API", null, 3, "PT1M", "POINTS");
		RateLimiter limiter = limiter();

		assertThat(headers(limiter.evaluate(octocat("GET", "/api/repos")))).containsEntry("RateLimit-Policy",
				"\"default\";q=2000;w=2, \"points\";q=5;w=100");
		assertThat(headers(limiter.evaluate(octocat("PUT", "/api/settings")))).containsEntry("RateLimit-Policy",
				"\"default\";q=2000;w=2, \"points\";q=5;w=100");
	}

	@Test
	void evaluateWhenConcurrentThenNoLimitAdmitsMoreAndRefusedRequestsLeaveNothingTaken() throws Exception {
		row("default", null, "hourly", "API", null, 100, "PT1H", "REQUESTS");
		row("default", null, "content", "GROUP", "content", 30, "PT1H", "REQUESTS");
		RateLimiter limiter = limiter();
		int threads = 8;
		AtomicInteger admitted = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				done.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < 50; i++) {
						if (!limiter.evaluate(octocat("POST", "/api/issues")).isRejected()) {
							admitted.incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}

		// The clock stands still: the group admits exactly its 30, and the hourly bucket was
		// charged for those 30 alone, whatever the 370 refused requests took and gave back.
		assertThat(admitted).hasValue(30);
		assertThat(headers(limiter.evaluate(octocat("GET", "/api/repos")))).containsEntry("RateLimit",
				"\"default\";r=1999;t=1, \"hourly\";r=69;t=36");
	}

	@Test
	void evaluateWhenLoginEndpointThenItsTwoBucketsAndTheLayersAreChargedAllOrNothing() {
		row("default", null, "hourly", "API", null, 5, "PT1H", "REQUESTS");
		// A bucket of one attempt for the client and one for the account, refilled in 1,000 s.
		this.rows.add(new PolicyRow("9", "POST /api/login", null, new BigDecimal("0.001"), null));
		RateLimiter limiter = limiter((builder) -> builder.sensitiveEndpoint(LOGIN,
				(request) -> SubmittedIdentifier.of(request.header("X-User"))));
		TestRequest login = TestRequest.of("POST", "/api/login").header("X-User", "alice");

		Decision first = limiter.evaluate(login);
		assertThat(first.isRejected()).isFalse();
		assertThat(first.attempt()).isNotNull();
		assertThat(headers(first)).containsEntry("RateLimit-Policy",
				"\"POST /api/login\";q=1;w=1000, \"POST /api/login identifier\";q=1;w=1000, \"hourly\";q=5;w=3600");
		Decision refused = limiter.evaluate(login);

		assertThat(refused.isRejected()).isTrue();
		assertThat(refused.attempt()).isNull();
		assertThat(refused.limitName()).isEqualTo("POST /api/login");
		assertThat(headers(refused)).containsEntry("RateLimit",
				"\"POST /api/login\";r=0;t=1000, \"POST /api/login identifier\";r=0;t=1000, \"hourly\";r=4;t=720");
	}

}
