package io.ratelimit.autoconfigure;

import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a replica tells over HTTP of its batched global buckets' background calls: the
 * metrics ({@code ratelimit.redis.lease.pending.calls}, {@code ratelimit.redis.pipeline.*}),
 * the {@code ratelimitRedis} health details and {@code explain}. Redis is reached through a
 * proxy that stops answering while cold keys are decided on credit, so that their charges
 * stay in flight for as long as the test reads them, and are answered when it heals.
 */
class BatchedObservabilityEndToEndTest {

	private static final ObjectMapper json = new ObjectMapper();

	/** Cold keys, one per client: each is decided on credit and charged by a call of its own. */
	private static final int CLIENTS = 40;

	/** What a cold key may admit before it is charged: a tenth of the row's capacity. */
	private static final int CREDIT = 20;

	/** rps 100, burst factor 2: a capacity of 200. */
	private static final String ROW = "INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) "
			+ "VALUES ('GET /api/orders/*/items', 100, 'GLOBAL_BATCHED')";

	private static final String EXPLAIN = "/actuator/ratelimit/explain?endpoint=GET%20/api/orders/*/items"
			+ "&client=198.51.100.1";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenBatchedChargesAwaitRedisThenMetricsHealthAndExplainCountThemUntilAnswered() throws Exception {
		URI target = URI.create(redis.url());
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO);
				ConfigurableApplicationContext replica = replica(proxy)) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute(ROW);
				// The test reads the actuator more often than the seeded default row (5/s) allows.
				sql.execute("UPDATE rate_limit_policy SET rps_limit = 100000 WHERE endpoint = 'default'");
			}
			assertThat(replica.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
			Http http = new Http(((WebServerApplicationContext) replica).getWebServer().getPort());
			// The startup's warm-up used the pipelined connection already.
			double roundTripsBefore = meter(http, "ratelimit.redis.pipeline.round.trips");
			double commandsBefore = meter(http, "ratelimit.redis.pipeline.commands");

			proxy.hang();
			try {
				for (int i = 1; i <= CLIENTS; i++) {
					assertThat(http.get("/api/orders/7/items", "X-Forwarded-For", "198.51.100." + i).statusCode())
						.as("decided on credit, without Redis")
						.isEqualTo(200);
				}

				// No charge can be answered: each cold key's is in flight.
				assertThat(meter(http, "ratelimit.redis.lease.pending.calls")).isGreaterThanOrEqualTo(CLIENTS);
				JsonNode batched = batchedHealth(http);
				assertThat(batched.path("pendingCalls").asLong()).isGreaterThanOrEqualTo(CLIENTS);
				assertThat(batched.path("coldStarts").asLong()).isEqualTo(CLIENTS);
				assertThat(batched.path("leases").asLong()).isEqualTo(CLIENTS);
				JsonNode explained = json.readTree(http.get(EXPLAIN).body()).path("batched");
				assertThat(explained.path("replicaPendingCalls").asLong()).isGreaterThanOrEqualTo(CLIENTS);
				assertThat(explained.path("replicaLeases").asLong()).isEqualTo(CLIENTS);
				assertThat(explained.path("replicaLeasedTokens").asLong()).isEqualTo(CLIENTS * (CREDIT - 1));
				assertThat(explained.path("client").asString()).isEqualTo("198.51.100.1");
				// The client's credit, less its request, and none of it charged yet.
				assertThat(explained.path("lease").path("creditTokens").asDouble()).isEqualTo(CREDIT);
				assertThat(explained.path("lease").path("leasedTokens").asDouble()).isEqualTo(CREDIT - 1);
			}
			finally {
				proxy.heal();
			}

			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				assertThat(meter(http, "ratelimit.redis.lease.pending.calls")).isZero();
				assertThat(batchedHealth(http).path("pendingCalls").asLong()).isZero();
				assertThat(json.readTree(http.get(EXPLAIN).body()).path("batched").path("replicaPendingCalls").asLong())
					.isZero();
			});
			// Charged: the client's lease owes Redis nothing, and holds nothing it must give back.
			JsonNode settled = json.readTree(http.get(EXPLAIN).body()).path("batched");
			assertThat(settled.path("replicaLeasedTokens").asLong()).isZero();
			JsonNode lease = settled.path("lease");
			assertThat(lease.path("creditTokens").asDouble()).isZero();
			assertThat(lease.path("leasedTokens").asDouble()).isZero();
			// Every charge was at least one command, and the charges shared the writes.
			double roundTrips = meter(http, "ratelimit.redis.pipeline.round.trips") - roundTripsBefore;
			double commands = meter(http, "ratelimit.redis.pipeline.commands") - commandsBefore;
			assertThat(commands).isGreaterThanOrEqualTo(CLIENTS);
			assertThat(roundTrips).isPositive().isLessThan(commands);
		}
	}

	private static ConfigurableApplicationContext replica(DelayingTcpProxy proxy) {
		return new SpringApplicationBuilder(TestShopApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.data.redis.url=" + proxy.redisUrl(),
				"--ratelimit.redis.key-prefix=" + redis.prefix(), "--ratelimit.key-secret=one-replica-0123456789abcdef",
				"--ratelimit.policy.refresh-interval=1h", "--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				// Calls held by the proxy must not time out, nor leases go back, while the test reads.
				"--ratelimit.redis.timeout=30s", "--ratelimit.redis.batch.idle-return=1m",
				// Wider than a request: the charges of many requests share each write.
				"--ratelimit.redis.batch.flush-interval=100ms", "--spring.jmx.enabled=false",
				"--management.endpoints.web.exposure.include=ratelimit,metrics,health",
				"--management.endpoint.health.show-details=always");
	}

	private static double meter(Http http, String name) {
		JsonNode meter = json.readTree(http.get("/actuator/metrics/" + name).body());
		assertThat(meter.path("name").asString()).isEqualTo(name);
		return meter.path("measurements").path(0).path("value").asDouble();
	}

	/** Only the contributor of the limiter's Redis: Spring Data's would ping through the hung proxy. */
	private static JsonNode batchedHealth(Http http) {
		JsonNode health = json.readTree(http.get("/actuator/health/ratelimitRedis").body());
		assertThat(health.path("status").asString()).isEqualTo("UP");
		return health.path("details").path("batched");
	}

}
