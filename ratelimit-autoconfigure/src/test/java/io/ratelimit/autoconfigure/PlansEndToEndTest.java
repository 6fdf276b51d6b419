package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testapp.Hs256TokenConfiguration;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans with a tenant override over HTTP, with the rows in PostgreSQL as the README writes
 * them, counts scaled down: Free is 1 request a second per endpoint (burst 2) and 12 a day
 * across the API instead of 10 a second and 1,000 a day; Pro 5 a second and 100 a day;
 * Enterprise without the daily count; callers on no plan 3 a day; tenant {@code acme}, on
 * Free, 30 a day of its own. The plan comes from the tenant-to-plan table, an API key's
 * column or a bearer token's claim. Buckets run on a fake clock. Each test is a user (an
 * API key or a token) or an address of its own, so tests never share buckets; the periodic
 * refresh is an hour apart, so a change that arrives sooner came by {@code NOTIFY}.
 */
@SpringBootTest(classes = LayeredApiApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.api-key.hash-secret=" + PlansEndToEndTest.HASH_SECRET, "ratelimit.policy.default-rps=100",
				"ratelimit.policy.refresh-interval=1h", "management.endpoints.web.exposure.include=ratelimit",
				"spring.jpa.open-in-view=false", "spring.flyway.enabled=false" })
@Import({ PlansEndToEndTest.FakeClockBuckets.class, Hs256TokenConfiguration.class })
@DirtiesContext
class PlansEndToEndTest {

	static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	private static final FakeTimeSource time = new FakeTimeSource();

	private static final AtomicInteger users = new AtomicInteger();

	private static final AtomicInteger addresses = new AtomicInteger();

	private static final String FREE = "\"default\";q=2;w=2, \"daily\";q=12;w=86400";

	private static final String PRO = "\"default\";q=10;w=2, \"daily\";q=100;w=86400";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static boolean rowsInserted;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	@Autowired
	private ReloadableApiKeys apiKeys;

	private Http http;

	private String address;

	/**
	 * The README's rows, inserted once the limiter has created its tables (the context starts
	 * after {@code @BeforeAll}), and the API keys of the users the tests need.
	 */
	private static synchronized void insertRowsOnce() throws SQLException {
		if (rowsInserted) {
			return;
		}
		rowsInserted = true;
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy (endpoint, plan, rps_limit) VALUES
					    ('default', 'free', 1),
					    ('default', 'pro',  5)
					""");
			sql.execute("""
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, plan, mode, limit_name, applies_to, limit_count, limit_window, counts)
					VALUES
					    ('default', NULL,   NULL,         'ENFORCE', 'daily', 'API', 3,   'P1D', 'REQUESTS'),
					    ('default', NULL,   'free',       'ENFORCE', 'daily', 'API', 12,  'P1D', 'REQUESTS'),
					    ('default', NULL,   'pro',        'ENFORCE', 'daily', 'API', 100, 'P1D', 'REQUESTS'),
					    ('default', NULL,   'enterprise', 'OFF',     'daily', 'API', 1,   'P1D', 'REQUESTS'),
					    ('default', 'acme', NULL,         'ENFORCE', 'daily', 'API', 30,  'P1D', 'REQUESTS')
					""");
			sql.execute("""
					INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES
					    ('acme', 'free'), ('initech', 'free'), ('hooli', 'pro'), ('umbrella', 'enterprise'),
					    ('wayne', 'free')
					""");
			KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
			for (int i = 1; i <= 20; i++) {
				insertKey(sql, hasher, "initech-user-" + i, "initech", null);
			}
			insertKey(sql, hasher, "acme-user", "acme", null);
			insertKey(sql, hasher, "hooli-user", "hooli", null);
			insertKey(sql, hasher, "umbrella-user", "umbrella", null);
			insertKey(sql, hasher, "wayne-user", "wayne", null);
			// Not in the tenant-to-plan table: the key's own plan applies.
			insertKey(sql, hasher, "soylent-user", "soylent", "pro");
			// In the table on Free: the table outranks the key's Pro.
			insertKey(sql, hasher, "initech-pro-key", "initech", "pro");
		}
	}

	private static void insertKey(Statement sql, KeyedHasher hasher, String key, String tenant, String plan)
			throws SQLException {
		sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id, plan) VALUES ('"
				+ hasher.hashHex(key) + "', '" + key + "', '" + tenant + "', "
				+ ((plan != null) ? "'" + plan + "'" : "NULL") + ")");
	}

	@BeforeEach
	void reload() throws SQLException {
		insertRowsOnce();
		assertThat(this.policies.reload().succeeded()).isTrue();
		assertThat(this.policies.current().rejected()).isEmpty();
		this.apiKeys.reload();
		this.http = new Http(this.port);
		this.address = "198.51.100." + addresses.incrementAndGet();
	}

	private static String newInitechUser() {
		return "initech-user-" + users.incrementAndGet();
	}

	private HttpResponse<String> send(String method, String path, String apiKey) {
		return (apiKey != null) ? this.http.send(method, path, "X-Forwarded-For", this.address, "X-API-Key", apiKey)
				: this.http.send(method, path, "X-Forwarded-For", this.address);
	}

	private HttpResponse<String> sendWithToken(String path, String token) {
		return this.http.send("GET", path, "X-Forwarded-For", this.address, "Authorization", token);
	}

	private static String bearer(String secret, String subject, String tenant, String plan) {
		return "Bearer " + Hs256TokenConfiguration.sign(secret, subject, tenant, plan);
	}

	private static String header(HttpResponse<String> response, String name) {
		return response.headers().firstValue(name).orElse("none");
	}

	/** Sends a request a second to {@code GET /api/repos/*}, so only the daily count can refuse. */
	private int admittedOverTime(String apiKey, int attempts) {
		int admitted = 0;
		for (int i = 0; i < attempts; i++) {
			if (send("GET", "/api/repos/" + i, apiKey).statusCode() == 200) {
				admitted++;
			}
			time.advance(Duration.ofSeconds(1));
		}
		return admitted;
	}

	@Test
	void getWhenTenantIsOnFreeWithoutRowsOfItsOwnThenFreesRatePerEndpointApplies() {
		String user = newInitechUser();
		assertThat(send("GET", "/api/repos/1", user).statusCode()).isEqualTo(200);
		assertThat(send("GET", "/api/repos/2", user).statusCode()).isEqualTo(200);

		HttpResponse<String> refused = send("GET", "/api/repos/3", user);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "RateLimit-Policy")).isEqualTo(FREE);
		assertThat(header(refused, "RateLimit")).startsWith("\"default\";r=0;t=1");
		// Per endpoint: another endpoint has a bucket of its own.
		assertThat(send("GET", "/api/status", user).statusCode()).isEqualTo(200);
		time.advance(Duration.ofSeconds(1));
		assertThat(send("GET", "/api/repos/3", user).statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenFreeTenantSpendsItsDailyCountThenRefusedByTheDailyLimit() {
		String user = newInitechUser();
		assertThat(admittedOverTime(user, 12)).isEqualTo(12);

		HttpResponse<String> refused = send("GET", "/api/repos/1", user);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "RateLimit")).contains("\"daily\";r=0;");
		assertThat(refused.body()).contains("\"policy\":\"daily\"");
	}

	@Test
	void getWhenTenantOnFreeHasARowOfItsOwnThenItOverridesFreesDailyCountOnly() {
		HttpResponse<String> first = send("GET", "/api/repos/1", "acme-user");

		assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"default\";q=2;w=2, \"daily\";q=30;w=86400");
		assertThat(admittedOverTime("acme-user", 30)).isEqualTo(29);
		assertThat(send("GET", "/api/repos/1", "acme-user").statusCode()).isEqualTo(429);
	}

	@Test
	void getWhenTenantIsOnProInTheTableThenProsRows() {
		assertThat(header(send("GET", "/api/repos/1", "hooli-user"), "RateLimit-Policy")).isEqualTo(PRO);
	}

	@Test
	void getWhenTheTableNamesNoPlanForTheTenantThenTheKeysOwnPlan() {
		assertThat(header(send("GET", "/api/repos/1", "soylent-user"), "RateLimit-Policy")).isEqualTo(PRO);
	}

	@Test
	void getWhenTheKeySaysProButTheTablePutsItsTenantOnFreeThenFree() {
		assertThat(header(send("GET", "/api/repos/1", "initech-pro-key"), "RateLimit-Policy")).isEqualTo(FREE);
	}

	@Test
	void getWhenTokenNamesAPlanAndItsTenantIsNotInTheTableThenTheTokensPlan() {
		String token = bearer(Hs256TokenConfiguration.SECRET, "soylent-token-user", "soylent", "pro");

		assertThat(header(sendWithToken("/api/repos/1", token), "RateLimit-Policy")).isEqualTo(PRO);
	}

	@Test
	void getWhenTokenSaysProButTheTablePutsItsTenantOnFreeThenFree() {
		String token = bearer(Hs256TokenConfiguration.SECRET, "initech-token-user", "initech", "pro");

		assertThat(header(sendWithToken("/api/repos/1", token), "RateLimit-Policy")).isEqualTo(FREE);
	}

	@Test
	void getWhenTokenNamingAPlanIsBadlySignedThenNoPlanAndNoTenant() {
		String forged = bearer("a-secret-the-application-never-had!!", "someone", "hooli", "pro");

		assertThat(header(sendWithToken("/api/repos/1", forged), "RateLimit-Policy"))
			.isEqualTo("\"default\";q=200;w=2, \"daily\";q=3;w=86400");
	}

	@Test
	void getWhenPlansRowSwitchesTheDailyCountOffThenOnlyTheOwnLimitApplies() {
		assertThat(header(send("GET", "/api/repos/1", "umbrella-user"), "RateLimit-Policy"))
			.isEqualTo("\"default\";q=200;w=2");
	}

	@Test
	void getWhenAnonymousOrAnInventedKeyThenNoPlanAndNoTenantBudget() {
		HttpResponse<String> anonymous = send("GET", "/api/repos/1", null);
		HttpResponse<String> invented = this.http.send("GET", "/api/repos/2", "X-Forwarded-For", this.address,
				"X-API-Key", "acme-user-guess", "X-Plan", "enterprise", "X-Tenant", "acme");

		assertThat(header(anonymous, "RateLimit-Policy")).isEqualTo("\"default\";q=200;w=2, \"daily\";q=3;w=86400");
		assertThat(header(invented, "RateLimit-Policy")).isEqualTo("\"default\";q=200;w=2, \"daily\";q=3;w=86400");
		assertThat(send("GET", "/api/repos/3", null).statusCode()).isEqualTo(200);
		assertThat(send("GET", "/api/repos/4", null).statusCode()).isEqualTo(429);
	}

	@Test
	void getWhenTenantsPlanChangesInTheTableThenEveryRequestAfterTheCommitHasTheNewPlanWithoutAReload()
			throws Exception {
		assertThat(header(send("GET", "/api/repos/1", "wayne-user"), "RateLimit-Policy")).isEqualTo(FREE);
		long version = this.policies.current().version();

		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("UPDATE rate_limit_tenant_plan SET plan = 'pro', updated_at = CURRENT_TIMESTAMP "
					+ "WHERE project_id = 'wayne'");
		}

		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (this.policies.current().version() == version && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(this.policies.current().version()).isGreaterThan(version);
		assertThat(header(send("GET", "/api/repos/1", "wayne-user"), "RateLimit-Policy")).isEqualTo(PRO);
	}

	@Test
	void explainWhenTenantIsOnAPlanThenThePlanItsSourceAndEveryLinkWithTheRowItCameFrom() throws Exception {
		JsonNode initech = explain("tenant=initech");

		assertThat(initech.path("plan").asString()).isEqualTo("free");
		assertThat(initech.path("planSource").asString()).isEqualTo("tenant-plan table");
		List<String> links = new ArrayList<>();
		initech.path("chain").forEach((link) -> links.add(link.path("endpoint").asString() + " | "
				+ link.path("tenant").asString("-") + " | " + link.path("plan").asString("-") + " | "
				+ link.path("found").path("origin").asString("no row")));
		assertThat(links).hasSize(5);
		assertThat(links.subList(0, 4)).containsExactly("GET /api/repos/* | initech | - | no row",
				"GET /api/repos/* | - | free | no row", "GET /api/repos/* | - | - | no row",
				"default | initech | - | no row");
		assertThat(links.get(4)).startsWith("default | - | free | row ");
		assertThat(initech.path("policy").path("rps").asString()).isEqualTo("1.000000");
		JsonNode daily = initech.path("layers").get(0);
		assertThat(daily.path("policy").path("plan").asString()).isEqualTo("free");
		assertThat(daily.path("policy").path("quota").asLong()).isEqualTo(12);

		JsonNode acme = explain("tenant=acme");
		assertThat(acme.path("layers").get(0).path("chain")).hasSize(1);
		assertThat(acme.path("layers").get(0).path("policy").path("tenant").asString()).isEqualTo("acme");

		JsonNode hypothetical = explain("tenant=initech&plan=enterprise");
		assertThat(hypothetical.path("planSource").asString()).isEqualTo("parameter");
		assertThat(hypothetical.path("policy").path("origin").asString()).isEqualTo("built-in");
		assertThat(hypothetical.path("layers").get(0).path("applies").asBoolean()).isFalse();

		JsonNode nobody = explain("tenant=globex");
		assertThat(nobody.path("planSource").asString()).isEqualTo("none");
		assertThat(nobody.path("layers").get(0).path("policy").path("quota").asLong()).isEqualTo(3);

		this.address = "198.51.100." + addresses.incrementAndGet();
		JsonNode listing = new ObjectMapper().readTree(send("GET", "/actuator/ratelimit", null).body());
		List<String> plans = new ArrayList<>();
		listing.path("policies").forEach((policy) -> plans.add(policy.path("plan").asString("-")));
		assertThat(plans).contains("free", "pro", "enterprise", "-");
		this.address = "198.51.100." + addresses.incrementAndGet();
		JsonNode pro = new ObjectMapper().readTree(send("GET", "/actuator/ratelimit?plan=pro", null).body());
		assertThat(pro.path("policies")).isNotEmpty()
			.allSatisfy((policy) -> assertThat(policy.path("plan").asString()).isEqualTo("pro"));
		assertThat(pro.path("page").path("totalElements").asLong()).isEqualTo(pro.path("policies").size());
	}

	private JsonNode explain(String query) throws Exception {
		// An address of its own: the admin requests are limited too, and anonymous callers have 3 an hour.
		this.address = "198.51.100." + addresses.incrementAndGet();
		HttpResponse<String> response = send("GET",
				"/actuator/ratelimit/explain?method=GET&path=/api/repos/1&" + query, null);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return new ObjectMapper().readTree(response.body());
	}

	/**
	 * Local buckets on the test's clock.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class FakeClockBuckets {

		@Bean
		BucketStore rateLimitBucketStore() {
			return LocalBucketStore.create(10_000, time);
		}

	}

}
