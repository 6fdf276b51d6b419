package io.ratelimit.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.inflightapp.InFlightApiApplication;
import io.ratelimit.autoconfigure.inflightapp.SlowHandlers;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.RateLimiter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * The operational surface of in-flight limits over HTTP: the meters
 * {@code ratelimit.in-flight.permits}, {@code ratelimit.in-flight.keys} and
 * {@code ratelimit.in-flight.refused-for-room} of both stores, and the health detail
 * {@code inFlight}, against the requests the test holds in progress. A {@code LOCAL} limit
 * of 2 on the blocking slow endpoint, a {@code GLOBAL} one of 2 on the asynchronous one,
 * on a redis-server of the test's own; at most 2 callers hold permits in each store.
 */
class InFlightMetersAndHealthEndToEndTest {

	private static final HttpClient client = HttpClient.newHttpClient();

	private static final AtomicInteger addresses = new AtomicInteger();

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static boolean limitsInserted;

	private RedisServerProcess server;

	private ConfigurableApplicationContext application;

	private final List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();

	@BeforeEach
	void start() throws Exception {
		SlowHandlers.close();
		this.server = RedisServerProcess.start();
		this.application = new SpringApplicationBuilder(InFlightApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + this.server.url(), "--ratelimit.redis.key-prefix=meters-test:",
				"--ratelimit.redis.timeout=200ms", "--ratelimit.in-flight.maximum-keys=2",
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.policy.default-rps=1000", "--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
				"--management.endpoints.web.exposure.include=health",
				"--management.endpoint.health.show-details=always",
				"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128");
		insertTheLimitsOnce();
		RateLimiter limiter = this.application.getBean(RateLimiter.class);
		assertThat(limiter.policies().reload().succeeded()).isTrue();
		assertThat(limiter.policies().current().rejected()).isEmpty();
	}

	/** Once the first application has created the table. */
	private static synchronized void insertTheLimitsOnce() throws Exception {
		if (limitsInserted) {
			return;
		}
		limitsInserted = true;
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, counts, scope)
					VALUES
					    ('GET /api/slow/*',     'local-in-flight',  'ENDPOINT', 2, 'IN_FLIGHT', 'LOCAL'),
					    ('GET /api/deferred/*', 'global-in-flight', 'ENDPOINT', 2, 'IN_FLIGHT', 'GLOBAL')
					""");
		}
	}

	@AfterEach
	void stop() throws Exception {
		SlowHandlers.open();
		try {
			for (CompletableFuture<HttpResponse<String>> request : this.held) {
				request.get(10, TimeUnit.SECONDS);
			}
			this.application.close();
		}
		finally {
			this.server.close();
		}
	}

	@Test
	void metersAndHealthWhenLocalPermitsAreHeldThenTheyCountThemTheirCallersAndTheRefusalsForRoom()
			throws Exception {
		String first = caller();
		hold("/api/slow/", first, 2);
		hold("/api/slow/", caller(), 1);
		assertThat(SlowHandlers.awaitEntered(3)).isTrue();

		assertThat(get("/api/slow/1", first).statusCode()).as("over its limit").isEqualTo(429);
		HttpResponse<String> noRoom = get("/api/slow/1", caller());
		assertThat(noRoom.statusCode()).as("a third caller, two already hold permits").isEqualTo(429);

		assertThat(gauge("ratelimit.in-flight.permits", "local")).isEqualTo(3);
		assertThat(gauge("ratelimit.in-flight.keys", "local")).isEqualTo(2);
		assertThat(refusedForRoom("local")).isEqualTo(1);
		assertThat(gauge("ratelimit.in-flight.permits", "global")).isZero();
		JsonNode inFlight = new ObjectMapper().readTree(get("/actuator/health", caller()).body())
			.path("components")
			.path("ratelimit")
			.path("details")
			.path("inFlight");
		assertThat(inFlight.path("permits").asLong()).as(inFlight.toString()).isEqualTo(3);
		assertThat(inFlight.path("keys").asLong()).isEqualTo(2);
		assertThat(inFlight.path("refusedForRoom").asLong()).isEqualTo(1);

		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> gauge("ratelimit.in-flight.permits", "local") == 0);
		assertThat(gauge("ratelimit.in-flight.keys", "local")).isZero();
	}

	@Test
	void metersWhenGlobalPermitsAreHeldInRedisAndByTheFailureModeThenTheGlobalStoreCountsBoth() throws Exception {
		String first = caller();
		hold("/api/deferred/", first, 2);
		assertThat(SlowHandlers.awaitEntered(2)).isTrue();
		assertThat(get("/api/deferred/1", first).statusCode()).as("over its limit, in Redis").isEqualTo(429);

		assertThat(gauge("ratelimit.in-flight.permits", "global")).isEqualTo(2);
		assertThat(gauge("ratelimit.in-flight.keys", "global")).isEqualTo(1);
		assertThat(gauge("ratelimit.in-flight.permits", "local")).isZero();

		// Redis goes away: the LOCAL failure mode takes permits of this replica at the same limit.
		this.server.stop();
		hold("/api/deferred/", caller(), 1);
		hold("/api/deferred/", caller(), 1);
		assertThat(SlowHandlers.awaitEntered(4)).isTrue();
		HttpResponse<String> noRoom = get("/api/deferred/1", caller());
		assertThat(noRoom.statusCode()).as("a third caller, two already hold the failure mode's permits")
			.isEqualTo(429);

		assertThat(gauge("ratelimit.in-flight.permits", "global")).isEqualTo(4);
		assertThat(gauge("ratelimit.in-flight.keys", "global")).isEqualTo(3);
		assertThat(refusedForRoom("global")).isEqualTo(1);
		assertThat(refusedForRoom("local")).isZero();
	}

	private void hold(String path, String address, int requests) {
		for (int i = 0; i < requests; i++) {
			this.held.add(send(path + i, address));
		}
	}

	private double gauge(String name, String store) {
		return this.application.getBean(MeterRegistry.class).get(name).tag("store", store).gauge().value();
	}

	private double refusedForRoom(String store) {
		return this.application.getBean(MeterRegistry.class)
			.get("ratelimit.in-flight.refused-for-room")
			.tag("store", store)
			.functionCounter()
			.count();
	}

	private static String caller() {
		return "198.51.100." + addresses.incrementAndGet();
	}

	private HttpResponse<String> get(String path, String address) throws Exception {
		return send(path, address).get(10, TimeUnit.SECONDS);
	}

	private CompletableFuture<HttpResponse<String>> send(String path, String address) {
		int port = ((WebServerApplicationContext) this.application).getWebServer().getPort();
		return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Forwarded-For", address)
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
