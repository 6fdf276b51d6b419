package io.ratelimit.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas of an application share one PostgreSQL policy table and one Redis: a GLOBAL
 * row is enforced across both (together they admit its capacity once), a GLOBAL_BATCHED
 * row too (from leases), a LOCAL row per replica (each admits its capacity).
 */
class GlobalPolicyEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenGlobalPolicyThenLimitSharedByReplicasAndLocalPolicyPerReplica() throws Exception {
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				// rps 1, burst factor 2: a capacity of 2 requests, one more per second.
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) "
						+ "VALUES ('GET /api/products', 1, 'GLOBAL')");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) "
						+ "VALUES ('GET /api/widgets', 1, 'LOCAL')");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit, scope) "
						+ "VALUES ('GET /api/orders/*/items', 1, 'GLOBAL_BATCHED')");
			}
			List<Http> replicas = List.of(http(first), http(second));
			for (ConfigurableApplicationContext context : List.of(first, second)) {
				context.getBean(io.ratelimit.core.RateLimiter.class).policies().reload();
			}

			assertThat(admitted(replicas, "/api/products", 10)).isEqualTo(2);
			assertThat(admitted(replicas, "/api/widgets", 10)).isEqualTo(4);
			long started = System.nanoTime();
			int batched = admitted(replicas, "/api/orders/7/items", 10);
			// An exact limiter admits the capacity of 2 and what the bucket refilled (one a
			// second) while the requests ran; a bucket this small makes a key's credit a whole
			// request (RATELIMIT-W018), so each of the 2 replicas may admit up to 2 beyond it.
			long refilled = (System.nanoTime() - started) / 1_000_000_000L;
			assertThat(batched).isBetween(2, 2 + (int) refilled + 2 * 2);
			assertThat(redis.keys(redis.prefix())).isNotEmpty();
			// The first replica leased the bucket's two tokens; explain shows its lease.
			String explained = replicas.get(0)
				.get("/actuator/ratelimit/explain?endpoint=GET%20/api/orders/*/items&client=127.0.0.1")
				.body();
			assertThat(explained).contains("\"scope\":\"GLOBAL_BATCHED\"", "\"replicaLeases\":1",
					"\"client\":\"127.0.0.1\"", "\"lease\":{\"leasedTokens\":");
			// Spent, but for what the bucket refilled into the lease since (a tenth of a token
			// after a tenth of a second at one per second): less than a request's worth, unless
			// the requests took longer than a second.
			Matcher leased = Pattern.compile("\"leasedTokens\":([0-9.]+)").matcher(explained);
			assertThat(leased.find()).isTrue();
			assertThat(Double.parseDouble(leased.group(1)))
				.isLessThan(1.0 + (System.nanoTime() - started) / 1e9);
			// Metrics and health cover the batched row.
			// The first request was decided on credit: a bucket this small refills a request
			// within a second. Whether a later one waited for Redis depends on timing.
			assertThat(count(replicas.get(0), "ratelimit.redis.lease.cold.starts")).isPositive();
			assertThat(count(replicas.get(0), "ratelimit.redis.lease.decisions?tag=outcome:local")).isPositive();
			Map<String, Object> health = first.getBean("ratelimitRedisHealthIndicator", HealthIndicator.class)
				.health()
				.getDetails();
			assertThat(health).extractingByKey("batched")
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("state", "connected")
				.containsEntry("leases", 1L)
				.containsEntry("refillFailures", 0L);
		}
	}

	private static int admitted(List<Http> replicas, String path, int requests) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			// Round-robin across replicas, one client address.
			admitted += (replicas.get(i % replicas.size()).get(path).statusCode() == 200) ? 1 : 0;
		}
		return admitted;
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(TestShopApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(),
				"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--spring.jmx.enabled=false", "--management.endpoints.web.exposure.include=ratelimit,metrics");
	}

	private static double count(Http replica, String metric) {
		String body = replica.get("/actuator/metrics/" + metric).body();
		return Double.parseDouble(body.replaceAll(".*\"value\":([0-9.E]+).*", "$1"));
	}

	private static Http http(ConfigurableApplicationContext context) {
		return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
	}

}
