package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.redis.RedisBucketStoreHealthIndicator;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.Refusals;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
			// Within the README's batched bounds over both replicas: more than the limit by at
			// most the credit a replica gives a key before Redis answers (2 × n × A, with A a
			// tenth of 40), less by at most 1.5 leases of 4 tokens per replica once no replica
			// is quiet after a short grant (a second at most: one request every 200 ms then).
			// Twenty local refusals that kept their lease token would have left at most 20.
			int[] total = { admitted };
			int[] sent = { 400 };
			await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
				if (total[0] < 40 - 12) {
					int i = sent[0]++;
					total[0] += (((i % 2 == 0) ? one : two).get("/api/repos/" + i).statusCode() == 200) ? 1 : 0;
				}
				return total[0] >= 40 - 12 && detail(batched(first), "pendingCalls") == 0
						&& detail(batched(second), "pendingCalls") == 0;
			});
			String state = "replicas' batched health: " + batched(first) + ", " + batched(second);
			assertThat(total[0]).as("admitted; " + state).isBetween(40 - 12, 40 + 2 * 2 * 4);
		}
	}

	/**
	 * The README's GitHub-shaped rows and an endpoint's single-rate row, scaled down as in
	 * {@code LayeredLimitsEndToEndTest}, every one of them {@code GLOBAL}, or every one
	 * {@code GLOBAL_BATCHED}, on one replica. Refill is too slow to matter while the test runs
	 * (one request per 10 minutes for the anonymous hourly count, one per 15 seconds for the
	 * group, one per 250 seconds for the endpoint).
	 * <p>
	 * {@code GLOBAL}: exactly the counts and fields of local buckets. {@code GLOBAL_BATCHED}:
	 * the README's batched bound, never more than a limit and less by at most
	 * {@code 1.5 × n × L} tokens, here n = 1 replica and leases L of one token (a tenth of a
	 * bucket this small, at least one token), so at least a limit less 1.5; a request over a
	 * limit is refused by it, and {@code RateLimit-Policy} is the same as local buckets'.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "GLOBAL", "GLOBAL_BATCHED" })
	void requestsWhenTheReadmeRowsAreSharedThenTheirCountsAndFields(String scope) throws Exception {
		boolean exact = scope.equals("GLOBAL");
		// Buckets in Redis outlive a replica: each run has a user and addresses of its own.
		String user = "acme-user-" + scope;
		String network = exact ? "198.51.100." : "203.0.113.";
		try (ConfigurableApplicationContext only = replica()) {
			onlyTheseRows(List.of(only), """
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, limit_name, applies_to, endpoint_group, limit_count, limit_window,
					     counts, scope)
					VALUES
					    ('default', NULL,   'hourly',           'API',   NULL,               6,  'PT1H', 'REQUESTS', '%1$s'),
					    ('default', 'acme', 'hourly',           'API',   NULL,               50, 'PT1H', 'REQUESTS', '%1$s'),
					    ('default', NULL,   'points',           'API',   NULL,               30, 'PT1M', 'POINTS',   '%1$s'),
					    ('default', NULL,   'content-creation', 'GROUP', 'content-creation', 4,  'PT1M', 'REQUESTS', '%1$s')
					""".formatted(scope),
					"INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) VALUES ('GET /api/status', 0.004, '"
							+ scope + "')",
					"INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
							+ KeyedHasher.withSecret(HASH_SECRET).hashHex(user) + "', '" + user + "', 'acme')");
			only.getBean(ReloadableApiKeys.class).reload();
			Http http = http(only);

			Attempts writes = Attempts.until(exact ? 5 : 40,
					() -> http.send("POST", "/api/repos/1/issues", "X-API-Key", user));
			HttpResponse<String> refused = writes.last();
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow()).isEqualTo(
					"\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"points\";q=30;w=60, \"content-creation\";q=4;w=60");
			if (exact) {
				assertThat(writes.admitted()).isEqualTo(4);
				assertThat(refused.body()).contains("\"policy\":\"content-creation\"");
				// Nothing charged for the refused request: four writes of five points, four requests.
				// t=15 but for the time the writes took (a second or more on a busy host).
				assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
					.contains("\"hourly\";r=46;", "\"points\";r=10;")
					.containsPattern("\"content-creation\";r=0;t=1[0-5]$");
			}
			else {
				assertThat(writes.admitted()).as("writes admitted, last refused by %s", refused.body())
					.isBetween(3, writes.most(4, Duration.ofSeconds(15)));
			}
			// A write costs 5 points, and one request of the other limits.
			Refusals.assertRefusedWithItsFields(refused, (limit) -> limit.equals("points") ? 5 : 1);

			Attempts anonymous = Attempts.until(exact ? 7 : 30,
					() -> http.get("/api/repos/1", "X-Forwarded-For", network + 7));
			assertThat(anonymous.admitted()).as("anonymous admitted")
				.isBetween(exact ? 6 : 5, anonymous.most(6, Duration.ofMinutes(10)));
			assertThat(anonymous.last().statusCode()).isEqualTo(429);
			Refusals.assertRefusedBy("hourly", anonymous.last());
			if (exact) {
				assertThat(anonymous.last().headers().firstValue("Retry-After")).hasValue("600");
			}
			assertThat(http.get("/api/repos/1", "X-Forwarded-For", network + 8).statusCode()).isEqualTo(200);

			// The endpoint's single-rate row, beside the layered ones: one request in 250 seconds.
			Attempts status = Attempts.until(exact ? 2 : 10,
					() -> http.get("/api/status", "X-Forwarded-For", network + 9));
			assertThat(status.admitted()).as("status admitted")
				.isBetween(exact ? 1 : 0, status.most(1, Duration.ofSeconds(250)));
			assertThat(status.last().statusCode()).isEqualTo(429);
			assertThat(status.last().headers().firstValue("RateLimit-Policy").orElseThrow())
				.isEqualTo("\"GET /api/status\";q=1;w=250, \"hourly\";q=6;w=3600, \"points\";q=30;w=60");
			Refusals.assertRefusedBy("GET /api/status", status.last());
			if (exact) {
				assertThat(status.last().headers().firstValue("Retry-After")).hasValue("250");
			}
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
				"--ratelimit.groups.content-creation=POST /api/repos/*/issues, POST /api/repos/*/comments",
				// Batched calls answer late, as a busy host or a far Redis answers them: a request
				// that finds its lease used up before the refill lands must not be refused what the
				// shared bucket holds. The timeout leaves the late calls time to answer.
				"--ratelimit.redis.batch.flush-interval=200ms", "--ratelimit.redis.timeout=2s");
	}

	/**
	 * The replica's batched state as its health details show it, read in process: over HTTP
	 * the reads would be requests of their own, charged to buckets of their own.
	 */
	@SuppressWarnings("unchecked")
	private static Map<String, Object> batched(ConfigurableApplicationContext replica) {
		return (Map<String, Object>) replica.getBean(RedisBucketStoreHealthIndicator.class)
			.health()
			.getDetails()
			.get("batched");
	}

	private static long detail(Map<String, Object> batched, String name) {
		return ((Number) batched.get(name)).longValue();
	}

	private static Http http(ConfigurableApplicationContext context) {
		return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
	}

	/**
	 * Requests sent one after another: how many were admitted, and the last answer.
	 */
	private record Attempts(int admitted, HttpResponse<String> last, Duration took) {

		static Attempts until(int attempts, Supplier<HttpResponse<String>> request) {
			long started = System.nanoTime();
			int admitted = 0;
			HttpResponse<String> last = null;
			for (int i = 0; i < attempts; i++) {
				last = request.get();
				assertThat(last.statusCode()).isIn(200, 429);
				admitted += (last.statusCode() == 200) ? 1 : 0;
			}
			return new Attempts(admitted, last, Duration.ofNanos(System.nanoTime() - started));
		}

		/** The most a limit of this count, refilled one every {@code refill}, allows meanwhile. */
		int most(int count, Duration refill) {
			return count + (int) (this.took.toNanos() / refill.toNanos());
		}

	}

}
