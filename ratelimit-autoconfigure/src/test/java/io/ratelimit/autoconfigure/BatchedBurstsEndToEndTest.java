package io.ratelimit.autoconfigure;

import java.net.URI;
import java.net.http.HttpResponse;
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

/**
 * {@code ratelimit.redis.batch.burst=refuse} over HTTP: a client that spends its key's
 * credit while the charge of it has not reached Redis (here Redis hangs behind a proxy, so
 * the call stays on its way) is refused at once, not kept waiting for Redis.
 */
class BatchedBurstsEndToEndTest {

	private static final ObjectMapper json = new ObjectMapper();

	/** What a cold key may admit before it is charged: a tenth of the row's capacity. */
	private static final int CREDIT = 20;

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenBurstsAreRefusedAndAColdKeysCreditIsSpentBeforeRedisAnswersThenRefusedWithoutWaiting()
			throws Exception {
		URI target = URI.create(redis.url());
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO);
				ConfigurableApplicationContext replica = replica(proxy)) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				// rps 100, burst factor 2: a capacity of 200.
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) "
						+ "VALUES ('GET /api/orders/*/items', 100, 'GLOBAL_BATCHED')");
				sql.execute("UPDATE rate_limit_policy SET rps_limit = 100000 WHERE endpoint = 'default'");
			}
			assertThat(replica.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
			Http http = new Http(((WebServerApplicationContext) replica).getWebServer().getPort());

			proxy.hang();
			try {
				for (int i = 0; i < CREDIT; i++) {
					assertThat(http.get("/api/orders/7/items").statusCode()).as("on credit").isEqualTo(200);
				}
				HttpResponse<String> refused = http.get("/api/orders/7/items");

				assertThat(refused.statusCode()).isEqualTo(429);
				assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(meter(http, "ratelimit.redis.lease.bursts")).isOne();
				assertThat(meter(http, "ratelimit.redis.lease.decisions?tag=outcome:waited"))
					.as("no request waited for Redis")
					.isZero();
				assertThat(meter(http, "ratelimit.redis.fallbacks")).as("none decided by the failure mode")
					.isZero();
			}
			finally {
				proxy.heal();
			}
		}
	}

	private static ConfigurableApplicationContext replica(DelayingTcpProxy proxy) {
		return new SpringApplicationBuilder(TestShopApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.data.redis.url=" + proxy.redisUrl(),
				"--ratelimit.redis.key-prefix=" + redis.prefix(), "--ratelimit.key-secret=one-replica-0123456789abcdef",
				"--ratelimit.policy.refresh-interval=1h", "--ratelimit.redis.batch.burst=refuse",
				// The charge held by the proxy must not time out while the test runs.
				"--ratelimit.redis.timeout=30s", "--spring.jmx.enabled=false",
				"--management.endpoints.web.exposure.include=metrics");
	}

	private static double meter(Http http, String name) {
		JsonNode meter = json.readTree(http.get("/actuator/metrics/" + name).body());
		assertThat(meter.path("name").asString()).as("the meter exists").isEqualTo(name.replaceAll("\\?.*", ""));
		return meter.path("measurements").path(0).path("value").asDouble();
	}

}
