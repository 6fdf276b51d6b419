package io.ratelimit.core;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.identity.VerifiedToken;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.PolicySource;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans through {@link RateLimiter#evaluate}: where a request's plan comes from (the
 * tenant-to-plan table, else its verified credential, else none), and that nothing a caller
 * sends without a verified credential gives it a plan.
 */
class PlansTest {

	private static final EndpointTemplate REPOS = EndpointTemplate.of("GET", "/api/repos");

	private static final EndpointTemplate SEARCH = EndpointTemplate.of("GET", "/api/search");

	private static final KeyedHasher KEY_HASHER = KeyedHasher.withSecret("the-api-key-hashing-secret-32by");

	private static final EndpointResolver ENDPOINTS = (request) -> switch (request.method() + " " + request.path()) {
		case "GET /api/repos" -> REPOS;
		case "GET /api/search" -> SEARCH;
		default -> EndpointTemplate.UNKNOWN;
	};

	/** The token verifier of these tests: a token is valid when it starts so. */
	private static final String VALID_TOKEN = "valid.";

	private final FakeTimeSource time = new FakeTimeSource();

	private final List<PolicyRow> rows = new ArrayList<>();

	private final Map<String, String> tenantPlans = new HashMap<>();

	private final List<ApiKey> keys = new ArrayList<>();

	private ReloadablePolicies policies;

	private RateLimiter limiter() {
		// A generous built-in default: only the rows under test bind.
		PolicySettings settings = PolicySettings.of(new BigDecimal("1000"), new BigDecimal("2"), BigDecimal.valueOf(2));
		PolicySource source = new PolicySource() {

			@Override
			public List<PolicyRow> load() {
				return List.copyOf(PlansTest.this.rows);
			}

			@Override
			public Map<String, String> loadTenantPlans() {
				return Map.copyOf(PlansTest.this.tenantPlans);
			}

		};
		this.policies = new ReloadablePolicies(source, settings, this.time);
		assertThat(this.policies.reload().succeeded()).isTrue();
		assertThat(this.policies.current().rejected()).isEmpty();
		ReloadableApiKeys apiKeys = new ReloadableApiKeys((limit) -> List.copyOf(this.keys), 100, this.time);
		apiKeys.reload();
		IdentityResolver identities = IdentityResolver.builder()
			.timeSource(this.time)
			.apiKeys(apiKeys, KEY_HASHER)
			.tokenVerifier(PlansTest::verify)
			.build();
		return RateLimiter.builder(ENDPOINTS, this.policies)
			.identities(identities)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(10_000, this.time))
			.build();
	}

	/** {@code valid.<subject>.<tenant>.<plan>}, {@code -} for a claim the token lacks. */
	private static VerifiedToken verify(String token) {
		if (!token.startsWith(VALID_TOKEN)) {
			return null;
		}
		String[] claims = token.substring(VALID_TOKEN.length()).split("\\.");
		return new VerifiedToken(claims[0], claim(claims[1]), null, claim(claims[2]));
	}

	private static String claim(String text) {
		return "-".equals(text) ? null : text;
	}

	private void key(String key, String tenant, String plan) {
		this.keys.add(new ApiKey(KEY_HASHER.hashHex(key), key, tenant, true, plan));
	}

	/** A per-minute count on every endpoint, for a tenant, a plan or (both null) everyone. */
	private void perMinute(String tenant, String plan, long count) {
		this.rows.add(PolicyRow
			.layered(String.valueOf(this.rows.size() + 1), "default", tenant, "per-minute", "ENDPOINT", null, count,
					"PT1M", "REQUESTS")
			.forPlan(plan));
	}

	/** Free: 3 a minute; Pro: 10; tenant acme on Free with 5 of its own; everyone else 1. */
	private void freeAndProWithAnOverride() {
		perMinute(null, null, 1);
		perMinute(null, "free", 3);
		perMinute(null, "pro", 10);
		perMinute("acme", null, 5);
		this.tenantPlans.put("acme", "free");
		this.tenantPlans.put("initech", "free");
		this.tenantPlans.put("downgraded", "free");
		key("acme-key", "acme", null);
		key("initech-key", "initech", null);
		key("pro-key", "hooli", "pro");
		key("downgraded-key", "downgraded", "pro");
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

	private static long quotaOf(Decision decision) {
		return decision.quotas().stream().filter((quota) -> quota.name().equals("per-minute")).findFirst().orElseThrow()
			.limits()
			.quota();
	}

	private static TestRequest withKey(String key) {
		return TestRequest.get("/api/repos").header("X-API-Key", key);
	}

	@Test
	void evaluateWhenTenantOnAPlanHasNoRowOfItsOwnThenThePlansRowApplies() {
		freeAndProWithAnOverride();

		assertThat(admitted(limiter(), 6, withKey("initech-key"))).isEqualTo(3);
	}

	@Test
	void evaluateWhenTenantHasARowOfItsOwnThenItOverridesItsPlansRow() {
		freeAndProWithAnOverride();

		assertThat(admitted(limiter(), 8, withKey("acme-key"))).isEqualTo(5);
	}

	@Test
	void evaluateWhenTheTableNamesNoPlanForTheTenantThenTheKeysPlanApplies() {
		freeAndProWithAnOverride();

		assertThat(admitted(limiter(), 12, withKey("pro-key"))).isEqualTo(10);
	}

	@Test
	void evaluateWhenTheTableAndTheKeyDisagreeThenTheTableWins() {
		freeAndProWithAnOverride();

		assertThat(admitted(limiter(), 12, withKey("downgraded-key"))).isEqualTo(3);
	}

	@Test
	void evaluateWhenTheTableChangesThenTheNextReloadMovesTheTenantToItsNewPlan() {
		freeAndProWithAnOverride();
		RateLimiter limiter = limiter();
		this.tenantPlans.put("initech", "pro");
		this.policies.reload();

		assertThat(admitted(limiter, 12, withKey("initech-key"))).isEqualTo(10);
	}

	@Test
	void evaluateWhenVerifiedTokenCarriesAPlanClaimThenThePlansRowApplies() {
		freeAndProWithAnOverride();
		TestRequest token = TestRequest.get("/api/repos").header("Authorization", "Bearer valid.alice.hooli.pro");

		assertThat(admitted(limiter(), 12, token)).isEqualTo(10);
	}

	@Test
	void evaluateWhenTokensTenantIsInTheTableThenTheTableOutranksThePlanClaim() {
		freeAndProWithAnOverride();
		TestRequest token = TestRequest.get("/api/repos").header("Authorization", "Bearer valid.bob.initech.pro");

		assertThat(admitted(limiter(), 12, token)).isEqualTo(3);
	}

	@Test
	void evaluateWhenTokenFailsVerificationThenItsPlanClaimCountsForNothing() {
		freeAndProWithAnOverride();
		TestRequest forged = TestRequest.get("/api/repos")
			.header("Authorization", "Bearer forged.mallory.acme.pro")
			.from("203.0.113.7");

		assertThat(admitted(limiter(), 5, forged)).isEqualTo(1);
	}

	@Test
	void evaluateWhenUnknownApiKeyThenNoTenantNoPlanOnlyTheGlobalRow() {
		freeAndProWithAnOverride();
		TestRequest invented = withKey("pro-key-guess").header("X-Plan", "pro").header("X-Tenant", "acme")
			.from("203.0.113.8");

		assertThat(admitted(limiter(), 5, invented)).isEqualTo(1);
	}

	@Test
	void evaluateWhenAnonymousThenNeitherPlanNorTenantBudgetsApply() {
		freeAndProWithAnOverride();
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 5, TestRequest.get("/api/repos").from("203.0.113.9"))).isEqualTo(1);
		assertThat(this.policies.current().planOf(null, null)).isNull();
	}

	@Test
	void evaluateWhenOneTenantsKeysCarryDifferentPlansThenEachRequestHasItsOwnKeysLimits() {
		// The layered limits of one endpoint and tenant are laid out once and remembered:
		// the plan must be part of what they are remembered by.
		perMinute(null, "free", 3);
		perMinute(null, "pro", 10);
		key("free-key", "hooli", "free");
		key("pro-key", "hooli", "pro");
		RateLimiter limiter = limiter();

		assertThat(quotaOf(limiter.evaluate(withKey("free-key")))).isEqualTo(3);
		assertThat(quotaOf(limiter.evaluate(withKey("pro-key")))).isEqualTo(10);
		assertThat(quotaOf(limiter.evaluate(withKey("free-key")))).isEqualTo(3);
	}

	@Test
	void evaluateWhenAPlanRowSwitchesALimitOffThenItsTenantsAreNotChargedButAnOverrideStillIs() {
		perMinute(null, null, 2);
		this.rows.add(new PolicyRow("9", "default", null, null, "OFF", null, "per-minute", "ENDPOINT", null, 1L,
				"PT1M", null, "REQUESTS", "enterprise"));
		perMinute("acme", null, 4);
		this.tenantPlans.put("acme", "enterprise");
		this.tenantPlans.put("initech", "enterprise");
		key("acme-key", "acme", null);
		key("initech-key", "initech", null);
		RateLimiter limiter = limiter();

		assertThat(admitted(limiter, 20, withKey("initech-key"))).isEqualTo(20);
		assertThat(admitted(limiter, 20, withKey("acme-key"))).isEqualTo(4);
	}

	@Test
	void evaluateWhenPlanChangesThenBucketKeysStayTheSame() {
		perMinute(null, "free", 3);
		perMinute(null, "pro", 3);
		this.tenantPlans.put("initech", "free");
		key("initech-key", "initech", null);
		RateLimiter limiter = limiter();
		assertThat(admitted(limiter, 3, withKey("initech-key"))).isEqualTo(3);
		this.tenantPlans.put("initech", "pro");
		this.policies.reload();

		// Same name, same bucket: moving to another plan is no fresh budget.
		assertThat(admitted(limiter, 3, withKey("initech-key"))).isZero();
	}

	@Test
	void evaluateWhenEndpointHasAGlobalRowThenItOutranksThePlansDefaultRow() {
		this.rows.add(new PolicyRow("1", "default", null, new BigDecimal("1"), null).forPlan("free"));
		this.rows.add(new PolicyRow("2", "GET /api/search", null, new BigDecimal("5"), null));
		this.tenantPlans.put("initech", "free");
		key("initech-key", "initech", null);
		RateLimiter limiter = limiter();

		assertThat(this.policies.current().resolve(SEARCH, "initech", "free").origin()).isEqualTo("row 2");
		assertThat(this.policies.current().resolve(REPOS, "initech", "free").origin()).isEqualTo("row 1");
		assertThat(admitted(limiter, 20, TestRequest.get("/api/search").header("X-API-Key", "initech-key")))
			.isEqualTo(10);
	}

}
