package io.ratelimit.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.inflightapp.InFlightApiApplication;
import io.ratelimit.autoconfigure.inflightapp.SlowHandlers;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas share a {@code GLOBAL} in-flight limit through Redis: a caller's requests in
 * progress on both count against one limit, and another caller is served.
 */
class GlobalInFlightLimitsEndToEndTest {

	private static final HttpClient client = HttpClient.newHttpClient();

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenInFlightLimitIsGlobalThenTheReplicasShareIt() throws Exception {
		SlowHandlers.close();
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("""
						INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, counts, scope)
						VALUES ('default', 'in-flight', 'API', 2, 'IN_FLIGHT', 'GLOBAL')
						""");
			}
			for (ConfigurableApplicationContext replica : new ConfigurableApplicationContext[] { first, second }) {
				assertThat(replica.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
			}
			int one = port(first);
			int two = port(second);

			CompletableFuture<HttpResponse<String>> heldOnOne = send(one, "/api/slow/1", "198.51.100.1");
			CompletableFuture<HttpResponse<String>> heldOnTwo = send(two, "/api/slow/2", "198.51.100.1");
			assertThat(SlowHandlers.awaitEntered(2)).isTrue();

			HttpResponse<String> refused = send(one, "/api/fast", "198.51.100.1").get(10, TimeUnit.SECONDS);
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit-Policy"))
				.hasValue("\"in-flight\";q=2;qu=\"concurrent-requests\"");
			assertThat(send(two, "/api/fast", "198.51.100.1").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(429);
			assertThat(send(two, "/api/fast", "198.51.100.2").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			assertThat(redis.keys(redis.prefix() + "in-flight:")).hasSize(1);

			SlowHandlers.open();
			assertThat(heldOnOne.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			assertThat(heldOnTwo.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> send(one, "/api/fast", "198.51.100.1").get(10, TimeUnit.SECONDS).headers()
					.firstValue("RateLimit")
					.orElse("")
					.endsWith("\"in-flight\";r=1;t=0"));
		}
		finally {
			SlowHandlers.open();
		}
	}

	private static CompletableFuture<HttpResponse<String>> send(int port, String path, String address) {
		return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Forwarded-For", address)
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(InFlightApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.policy.default-rps=100", "--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
				"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128");
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
