package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
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
 * Layered limits over HTTP with the policy rows in PostgreSQL, as the README writes them:
 * GitHub's published limits scaled down (per user, an hourly count across the API of 50
 * instead of 5,000; 30 points a minute instead of 900, a read costing 1 and a write 5; 4
 * content-creating requests a minute instead of 80), anonymous callers held to 6 requests
 * an hour per address instead of 60, and an endpoint on its single rate, unchanged. Buckets
 * run on a fake clock, so the tests step through minutes without sleeping. Each test is a
 * user (an API key) or an address of its own, so tests never share buckets.
 */
@SpringBootTest(classes = LayeredApiApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.api-key.hash-secret=" + LayeredLimitsEndToEndTest.HASH_SECRET,
				"ratelimit.policy.default-rps=100",
				"ratelimit.weights=POST /api/repos/*/issues=5, POST /api/repos/*/comments=5, PATCH /api/user=5",
				"ratelimit.groups.content-creation=POST /api/repos/*/issues, POST /api/repos/*/comments",
				"management.endpoints.web.exposure.include=ratelimit", "spring.jpa.open-in-view=false",
				"spring.flyway.enabled=false" })
@Import(LayeredLimitsEndToEndTest.FakeClockBuckets.class)
@DirtiesContext
class LayeredLimitsEndToEndTest {

	static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	private static final FakeTimeSource time = new FakeTimeSource();

	private static final AtomicInteger users = new AtomicInteger();

	private static final AtomicInteger addresses = new AtomicInteger();

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

	@Autowired
	private MeterRegistry meters;

	private Http http;

	private String address;

	/**
	 * The README's rows, inserted once the limiter has created its table (the context starts
	 * after {@code @BeforeAll}), and one API key per user the tests need.
	 */
	private static synchronized void insertRowsOnce() throws SQLException {
		if (rowsInserted) {
			return;
		}
		rowsInserted = true;
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, limit_name, applies_to, endpoint_group, limit_count, limit_window, counts)
					VALUES
					    ('default', NULL,   'hourly',           'API',   NULL,               6,  'PT1H', 'REQUESTS'),
					    ('default', 'acme', 'hourly',           'API',   NULL,               50, 'PT1H', 'REQUESTS'),
					    ('default', NULL,   'points',           'API',   NULL,               30, 'PT1M', 'POINTS'),
					    ('default', NULL,   'content-creation', 'GROUP', 'content-creation', 4,  'PT1M', 'REQUESTS')
					""");
			sql.execute("""
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, mode, limit_name, applies_to, endpoint_group, limit_count, limit_window)
					VALUES
					    ('default', 'legacy', 'OFF', 'hourly',           'API',   NULL,               1, 'PT1H'),
					    ('default', 'legacy', 'OFF', 'points',           'API',   NULL,               1, 'PT1M'),
					    ('default', 'legacy', 'OFF', 'content-creation', 'GROUP', 'content-creation', 1, 'PT1M')
					""");
			sql.execute("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/status', NULL, 2)");
			KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
			for (int i = 1; i <= 20; i++) {
				insertKey(sql, hasher, "acme-user-" + i, "acme");
			}
			insertKey(sql, hasher, "globex-user-1", "globex");
			insertKey(sql, hasher, "legacy-user-1", "legacy");
		}
	}

	private static void insertKey(Statement sql, KeyedHasher hasher, String key, String tenant) throws SQLException {
		sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('" + hasher.hashHex(key)
				+ "', '" + key + "', '" + tenant + "')");
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

	private double rejections(String endpoint, String limit) {
		Counter counter = this.meters.find("ratelimit.rejections").tag("endpoint", endpoint).tag("limit", limit).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static String newAcmeUser() {
		return "acme-user-" + users.incrementAndGet();
	}

	private HttpResponse<String> send(String method, String path, String apiKey) {
		return (apiKey != null) ? this.http.send(method, path, "X-Forwarded-For", this.address, "X-API-Key", apiKey)
				: this.http.send(method, path, "X-Forwarded-For", this.address);
	}

	private static String header(HttpResponse<String> response, String name) {
		return response.headers().firstValue(name).orElse("none");
	}

	@Test
	void postWhenFifthContentCreationInAMinuteThenRefusedByTheGroupAndNothingCharged() {
		String user = newAcmeUser();
		for (int i = 0; i < 4; i++) {
			assertThat(send("POST", "/api/repos/" + i + "/issues", user).statusCode()).isEqualTo(200);
		}

		double rejectedBefore = rejections("POST /api/repos/*/issues", "content-creation");
		HttpResponse<String> refused = send("POST", "/api/repos/9/issues", user);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(rejections("POST /api/repos/*/issues", "content-creation")).isEqualTo(rejectedBefore + 1);
		assertThat(header(refused, "Retry-After")).isEqualTo("15");
		assertThat(header(refused, "RateLimit-Policy")).isEqualTo(
				"\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"points\";q=30;w=60, \"content-creation\";q=4;w=60");
		assertThat(header(refused, "RateLimit")).isEqualTo(
				"\"default\";r=180;t=1, \"hourly\";r=46;t=72, \"points\";r=10;t=2, \"content-creation\";r=0;t=15");
		assertThat(refused.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
				+ "\"detail\":\"Rate limit exceeded for POST /api/repos/*/issues; retry after 15 seconds.\","
				+ "\"endpoint\":\"POST /api/repos/*/issues\",\"policy\":\"content-creation\"}");
		// A write that creates nothing is outside the group: it passes, on the points left.
		HttpResponse<String> settings = send("PATCH", "/api/user", user);
		assertThat(settings.statusCode()).isEqualTo(200);
		assertThat(header(settings, "RateLimit-Policy"))
			.isEqualTo("\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"points\";q=30;w=60");
		assertThat(header(settings, "RateLimit")).contains("\"points\";r=5;");
	}

	@Test
	void getWhenPointsOfAMinuteAreSpentThenReadsAreRefusedUntilTheyRefill() {
		String user = newAcmeUser();
		for (int i = 0; i < 5; i++) {
			assertThat(send("PATCH", "/api/user", user).statusCode()).isEqualTo(200);
		}
		for (int i = 0; i < 5; i++) {
			assertThat(send("GET", "/api/repos/" + i, user).statusCode()).isEqualTo(200);
		}

		HttpResponse<String> refused = send("GET", "/api/repos/1", user);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "Retry-After")).isEqualTo("2");
		assertThat(header(refused, "RateLimit")).contains("\"hourly\";r=40;", "\"points\";r=0;t=2");
		time.advance(Duration.ofSeconds(2));
		assertThat(send("GET", "/api/repos/1", user).statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenHourlyCountIsSpentThenRefusedAlthoughTheMinuteRefilledAndOtherLimitsKeepTheirTokens() {
		String user = newAcmeUser();
		for (int i = 0; i < 25; i++) {
			assertThat(send("GET", "/api/repos/" + i, user).statusCode()).isEqualTo(200);
		}
		time.advance(Duration.ofMinutes(1));
		for (int i = 0; i < 25; i++) {
			assertThat(send("GET", "/api/repos/" + i, user).statusCode()).isEqualTo(200);
		}

		HttpResponse<String> refused = send("GET", "/api/repos/1", user);

		assertThat(refused.statusCode()).isEqualTo(429);
		// 0.83 of a request refilled in the minute; the rest of one takes 12 s at 50 an hour.
		assertThat(header(refused, "Retry-After")).isEqualTo("12");
		assertThat(header(refused, "RateLimit")).contains("\"hourly\";r=0;t=12", "\"points\";r=5;");
		assertThat(header(send("GET", "/api/repos/1", user), "RateLimit")).contains("\"points\";r=5;");
	}

	@Test
	void getWhenAnonymousThenSixAnHourPerAddress() {
		for (int i = 0; i < 6; i++) {
			assertThat(send("GET", "/api/repos/" + i, null).statusCode()).isEqualTo(200);
		}

		HttpResponse<String> refused = send("GET", "/api/repos/1", null);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "Retry-After")).isEqualTo("600");
		assertThat(header(refused, "RateLimit")).contains("\"hourly\";r=0;t=600");
		this.address = "198.51.100." + addresses.incrementAndGet();
		assertThat(send("GET", "/api/repos/1", null).statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenTenantHasNoRowOfItsOwnThenTheGlobalRowOfEachLimitApplies() {
		HttpResponse<String> globex = send("GET", "/api/repos/1", "globex-user-1");

		assertThat(header(globex, "RateLimit-Policy"))
			.isEqualTo("\"default\";q=200;w=2, \"hourly\";q=6;w=3600, \"points\";q=30;w=60");
	}

	@Test
	void getWhenOnlyTheSingleRateAppliesThenFieldsAreAsBeforeLayeredLimits() {
		HttpResponse<String> legacy = send("GET", "/api/status", "legacy-user-1");

		assertThat(legacy.statusCode()).isEqualTo(200);
		assertThat(header(legacy, "RateLimit-Policy")).isEqualTo("\"GET /api/status\";q=4;w=2");
		assertThat(header(legacy, "RateLimit")).isEqualTo("\"GET /api/status\";r=3;t=1");
		for (int i = 0; i < 3; i++) {
			send("GET", "/api/status", "legacy-user-1");
		}
		HttpResponse<String> refused = send("GET", "/api/status", "legacy-user-1");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "Retry-After")).isEqualTo("1");
		assertThat(header(refused, "RateLimit")).isEqualTo("\"GET /api/status\";r=0;t=1");
	}

	@Test
	void explainWhenLayeredThenEveryLimitWithItsChainAndTheRowItCameFrom() throws Exception {
		HttpResponse<String> response = send("GET", "/actuator/ratelimit/explain?method=POST&path=/api/repos/1/issues"
				+ "&tenant=acme", null);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		JsonNode body = new ObjectMapper().readTree(response.body());

		assertThat(body.path("policy").path("origin").asString()).isEqualTo("built-in");
		JsonNode layers = body.path("layers");
		assertThat(layers).hasSize(3);
		assertThat(layers.get(0).path("limit").asString()).isEqualTo("hourly");
		assertThat(layers.get(0).path("policy").path("tenant").asString()).isEqualTo("acme");
		assertThat(layers.get(0).path("policy").path("quota").asLong()).isEqualTo(50);
		assertThat(layers.get(0).path("policy").path("window").asLong()).isEqualTo(3600);
		assertThat(layers.get(0).path("chain")).hasSize(1);
		assertThat(layers.get(1).path("limit").asString()).isEqualTo("points");
		assertThat(layers.get(1).path("policy").path("counts").asString()).isEqualTo("POINTS");
		assertThat(layers.get(1).path("chain")).hasSize(2);
		assertThat(layers.get(1).path("chain").get(0).path("found").isMissingNode()).isTrue();
		assertThat(layers.get(2).path("limit").asString()).isEqualTo("content-creation");
		assertThat(layers.get(2).path("policy").path("appliesTo").asString()).isEqualTo("GROUP");
		assertThat(layers.get(2).path("policy").path("group").asString()).isEqualTo("content-creation");
		for (JsonNode layer : layers) {
			assertThat(layer.path("policy").path("origin").asString()).startsWith("row ");
			assertThat(layer.path("applies").asBoolean()).isTrue();
		}
		// A tenant with its limits switched off sees the rows that switched them off.
		JsonNode legacy = new ObjectMapper().readTree(send("GET",
				"/actuator/ratelimit/explain?method=GET&path=/api/repos/1&tenant=legacy", null).body());
		assertThat(legacy.path("layers")).hasSize(2)
			.allSatisfy((layer) -> assertThat(layer.path("applies").asBoolean()).isFalse());
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
