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

import io.ratelimit.autoconfigure.inflightapp.InFlightApiApplication;
import io.ratelimit.autoconfigure.inflightapp.SlowHandlers;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.RateLimiter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code GLOBAL} in-flight limit of 2 over HTTP while its Redis hangs: a redis-server of
 * the test's own behind a proxy that stops forwarding without closing anything, so every
 * call to Redis waits for {@code ratelimit.redis.timeout}. The failure mode is the default,
 * {@code LOCAL}: this replica's permits at the same limit.
 */
class GlobalInFlightLimitsWhenRedisHangsEndToEndTest {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	/**
	 * What a request may take beyond the Redis timeout: opening a connection (a handshake
	 * that times out too) and the server's own work, on a busy host.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	private static final HttpClient client = HttpClient.newHttpClient();

	private static final AtomicInteger addresses = new AtomicInteger();

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private RedisServerProcess server;

	private DelayingTcpProxy proxy;

	private ConfigurableApplicationContext application;

	private static boolean limitInserted;

	/** Once the first application has created the table. */
	private static void insertTheLimitOnce() throws Exception {
		if (limitInserted) {
			return;
		}
		limitInserted = true;
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, counts, scope)
					VALUES ('default', 'in-flight', 'API', 2, 'IN_FLIGHT', 'GLOBAL')
					""");
		}
	}

	@BeforeEach
	void startRedis() throws Exception {
		SlowHandlers.close();
		this.server = RedisServerProcess.start();
		this.proxy = DelayingTcpProxy.start("127.0.0.1", this.server.port(), Duration.ZERO);
	}

	private void startApplication() throws Exception {
		this.application = new SpringApplicationBuilder(InFlightApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + this.proxy.redisUrl(), "--ratelimit.redis.key-prefix=hang-test:",
				"--ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms",
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.policy.default-rps=1000", "--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
				"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128");
		insertTheLimitOnce();
		assertThat(this.application.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
	}

	@AfterEach
	void stop() throws Exception {
		SlowHandlers.open();
		try {
			if (this.application != null) {
				this.application.close();
			}
		}
		finally {
			this.proxy.close();
			this.server.close();
		}
	}

	@Test
	void requestsWhenRedisHangsAfterTheFirstPermitThenEachIsAnsweredWithinTheTimeoutByTheLocalFailureMode()
			throws Exception {
		startApplication();
		assertThat(get("/api/fast", caller()).statusCode()).isEqualTo(200);
		this.proxy.hang();

		assertAnsweredByTheLocalFailureModeWithinTheTimeout();
	}

	@Test
	void requestsWhenRedisHangsSinceStartupThenEachIsAnsweredWithinTheTimeoutByTheLocalFailureMode()
			throws Exception {
		this.proxy.hang();
		startApplication();

		// The connection is opened by the requests, one attempt for all that arrive meanwhile.
		assertAnsweredByTheLocalFailureModeWithinTheTimeout();
	}

	@Test
	void requestsWhenAnAcquireTimedOutAndRedisAnswersAgainThenTheCallerHasItsWholeLimitBeforeTheTtl()
			throws Exception {
		startApplication();
		String address = caller();
		assertThat(get("/api/fast", address).statusCode()).isEqualTo(200);
		this.proxy.hang();
		// Redis runs this request's script once the proxy heals, after the request has
		// given up on it: a permit that no request holds, unless it is given back.
		assertThat(get("/api/fast", address).statusCode()).isEqualTo(200);
		this.proxy.heal();

		CompletableFuture<HttpResponse<String>> first = send("/api/slow/1", address);
		CompletableFuture<HttpResponse<String>> second = send("/api/slow/2", address);

		assertThat(SlowHandlers.awaitEntered(2)).as("both requests of the limit admitted").isTrue();
		HttpResponse<String> refused = get("/api/fast", address);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"in-flight\";r=0;t=1");
		SlowHandlers.open();
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
	}

	/**
	 * Sixteen callers at once, then one caller past its limit: every request is answered
	 * within the timeout and the margin, the callers by local permits, the third request of
	 * a caller holding two refused.
	 */
	private void assertAnsweredByTheLocalFailureModeWithinTheTimeout() throws Exception {
		List<CompletableFuture<Timed>> concurrent = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			concurrent.add(timed("/api/fast", caller()));
		}
		for (CompletableFuture<Timed> request : concurrent) {
			Timed answered = request.get(10, TimeUnit.SECONDS);
			assertThat(answered.response().statusCode()).isEqualTo(200);
			assertThat(answered.took()).isLessThan(TIMEOUT.plus(MARGIN));
		}

		String address = caller();
		CompletableFuture<HttpResponse<String>> first = send("/api/slow/1", address);
		CompletableFuture<HttpResponse<String>> second = send("/api/slow/2", address);
		assertThat(SlowHandlers.awaitEntered(2)).isTrue();
		Timed refused = timed("/api/fast", address).get(10, TimeUnit.SECONDS);
		assertThat(refused.response().statusCode()).isEqualTo(429);
		assertThat(refused.response().headers().firstValue("RateLimit-Policy"))
			.hasValue("\"in-flight\";q=2;qu=\"concurrent-requests\"");
		assertThat(refused.took()).isLessThan(TIMEOUT.plus(MARGIN));
		SlowHandlers.open();
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
	}

	private static String caller() {
		return "198.51.100." + addresses.incrementAndGet();
	}

	private HttpResponse<String> get(String path, String address) throws Exception {
		return send(path, address).get(10, TimeUnit.SECONDS);
	}

	private CompletableFuture<Timed> timed(String path, String address) {
		long started = System.nanoTime();
		return send(path, address)
			.thenApply((response) -> new Timed(response, Duration.ofNanos(System.nanoTime() - started)));
	}

	private CompletableFuture<HttpResponse<String>> send(String path, String address) {
		int port = ((WebServerApplicationContext) this.application).getWebServer().getPort();
		return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Forwarded-For", address)
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private record Timed(HttpResponse<String> response, Duration took) {
	}

}
