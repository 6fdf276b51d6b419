package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas share an API-wide limit through Redis ({@code GLOBAL}, and
 * {@code GLOBAL_BATCHED} from leases), layered over a {@code LOCAL} limit of one endpoint:
 * the shared bucket counts every endpoint on every replica, and a request the local limit
 * refuses takes nothing from it.
 */
class LayeredGlobalLimitsEndToEndTest {

	private static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenApiWideLimitIsGlobalThenReplicasShareItAndLocalRefusalsTakeNothingFromIt() throws Exception {
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			onlyTheseRows(List.of(first, second), """
					INSERT INTO rate_limit_policy
					    (endpoint, limit_name, applies_to, limit_count, limit_window, counts, scope)
					VALUES ('default', 'hourly', 'API', 3, 'PT1H', 'REQUESTS', 'GLOBAL')
					""",
					// One request per replica, then refused: 0.001 per second, raised to a bucket of one.
					"INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/status', 0.001)");
			Http one = http(first);
			Http two = http(second);

			assertThat(one.get("/api/status").statusCode()).isEqualTo(200);
			HttpResponse<String> refusedLocally = one.get("/api/status");
			assertThat(refusedLocally.statusCode()).isEqualTo(429);
			assertThat(refusedLocally.headers().firstValue("RateLimit").orElseThrow())
				.isEqualTo("\"GET /api/status\";r=0;t=1000, \"hourly\";r=2;t=1200");
			assertThat(two.get("/api/repos/1").statusCode()).isEqualTo(200);
			assertThat(one.get("/api/repos/2").statusCode()).isEqualTo(200);

			HttpResponse<String> refused = two.get("/api/repos/3");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"hourly\";r=0;t=1200");
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("1200");
			assertThat(redis.keys(redis.prefix())).isNotEmpty();
		}
	}

	@Test
	void requestsWhenApiWideLimitIsBatchedThenReplicasAdmitWithinTheBoundAndLocalRefusalsGiveTheirLeaseBack()
			throws Exception {
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			onlyTheseRows(List.of(first, second), """
					INSERT INTO rate_limit_policy
					    (endpoint, limit_name, applies_to, limit_count, limit_window, counts, scope)
					VALUES ('default', 'leased', 'API', 40, 'PT1H', 'REQUESTS', 'GLOBAL_BATCHED')
					""", "INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/status', 0.001)");
			Http one = http(first);
			Http two = http(second);
			int admitted = 0;
			assertThat(one.get("/api/status").statusCode()).isEqualTo(200);
			admitted++;
			for (int i = 0; i < 20; i++) {
				HttpResponse<String> refusedLocally = one.get("/api/status");
				assertThat(refusedLocally.statusCode()).isEqualTo(429);
				assertThat(refusedLocally.body()).contains("GET /api/status");
			}
			// Far more requests than the limit, alternating: a replica whose lease ran dry
			// refuses until its refill arrives, so a refusal alone does not mean the shared
			// bucket is empty.
			for (int i = 0; i < 400; i++) {
				HttpResponse<String> response = ((i % 2 == 0) ? one : two).get("/api/repos/" + i);
				assertThat(response.statusCode()).isIn(200, 429);
				if (response.statusCode() == 200) {
					admitted++;
				}
			}
			// Never more than the limit over both replicas, and less by at most the stated
			// bound (1.5 leases of 4 tokens per replica). Twenty local refusals that kept their
			// lease token would have left at most 20.
			assertThat(admitted).isBetween(40 - 12, 40);
		}
	}

	/**
	 * The README's GitHub-shaped rows, scaled down as in {@code LayeredLimitsEndToEndTest},
	 * every one of them {@code GLOBAL}: the same counts and fields from buckets in Redis.
	 * Refill is too slow to matter while the test runs (one request per 10 minutes for the
	 * anonymous hourly count, one per 15 seconds for the group).
	 */
	@Test
	void requestsWhenTheReadmeRowsAreGlobalThenTheSameCountsAndFieldsAsLocal() throws Exception {
		try (ConfigurableApplicationContext only = replica()) {
			onlyTheseRows(List.of(only), """
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, limit_name, applies_to, endpoint_group, limit_count, limit_window,
					     counts, scope)
					VALUES
					    ('default', NULL,   'hourly',           'API',   NULL,               6,  'PT1H', 'REQUESTS', 'GLOBAL'),
					    ('default', 'acme', 'hourly',           'API',   NULL,               50, 'PT1H', 'REQUESTS', 'GLOBAL'),
					    ('default', NULL,   'points',           'API',   NULL,               30, 'PT1M', 'POINTS',   'GLOBAL'),
					    ('default', NULL,   'content-creation', 'GROUP', 'content-creation', 4,  'PT1M', 'REQUESTS', 'GLOBAL')
					""", "INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
					+ KeyedHasher.withSecret(HASH_SECRET).hashHex("acme-user") + "', 'acme-user', 'acme')");
			only.getBean(ReloadableApiKeys.class).reload();
			Http http = http(only);

			for (int i = 0; i < 4; i++) {
				assertThat(http.send("POST", "/api/repos/" + i + "/issues", "X-API-Key", "acme-user").statusCode())
					.isEqualTo(200);
			}
			HttpResponse<String> refused = http.send("POST", "/api/repos/9/issues", "X-API-Key", "acme-user");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow()).isEqualTo(
					"\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"points\";q=30;w=60, \"content-creation\";q=4;w=60");
			// Nothing charged for the refused request: four writes of five points, four requests.
			assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
				.contains("\"hourly\";r=46;", "\"points\";r=10;", "\"content-creation\";r=0;t=15");

			for (int i = 0; i < 6; i++) {
				assertThat(http.get("/api/repos/" + i, "X-Forwarded-For", "198.51.100.7").statusCode()).isEqualTo(200);
			}
			HttpResponse<String> anonymous = http.get("/api/repos/1", "X-Forwarded-For", "198.51.100.7");
			assertThat(anonymous.statusCode()).isEqualTo(429);
			assertThat(anonymous.headers().firstValue("Retry-After")).hasValue("600");
			assertThat(http.get("/api/repos/1", "X-Forwarded-For", "198.51.100.8").statusCode()).isEqualTo(200);
		}
	}

	/** Replaces every policy row with these, and has each replica read them. */
	private static void onlyTheseRows(List<ConfigurableApplicationContext> replicas, String... inserts)
			throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("DELETE FROM rate_limit_policy");
			for (String insert : inserts) {
				sql.execute(insert);
			}
		}
		for (ConfigurableApplicationContext replica : replicas) {
			assertThat(replica.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
		}
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(LayeredApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.policy.default-rps=100", "--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
				"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128", "--ratelimit.api-key.hash-secret=" + HASH_SECRET,
				"--ratelimit.weights=POST /api/repos/*/issues=5, POST /api/repos/*/comments=5, PATCH /api/user=5",
				"--ratelimit.groups.content-creation=POST /api/repos/*/issues, POST /api/repos/*/comments");
	}

	private static Http http(ConfigurableApplicationContext context) {
		return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
	}

}
