package io.ratelimit.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.autoconfigure.inflightapp.InFlightApiApplication;
import io.ratelimit.autoconfigure.inflightapp.SlowHandlers;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether one caller at its in-flight limit slows the others down: the latency of another
 * caller's requests with nobody else busy, while one caller holds 50 slow requests (its 4
 * running, 46 refused), and while it also keeps sending more (each refused at once) from
 * {@value #FLOODERS} threads. Each phase runs twice, alternating, on this host's real
 * server. The limit is 4 rather than 2 so that the measured caller, which sends its next
 * request the moment it has a response, does not run into its own permits still being
 * given back (they are, when the server thread returns through the filter, a moment after
 * the client has the response); its refusals are counted all the same. Not a test (surefire runs {@code *Test} only); run it with
 * <pre>
 * ./mvnw -o -pl ratelimit-core,ratelimit-autoconfigure test -Dtest=InFlightIsolationExperiment \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * and read the lines it prints (docs/benchmarks.md).
 */
@SpringBootTest(classes = InFlightApiApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128", "ratelimit.policy.default-rps=100000",
				"spring.jpa.open-in-view=false", "spring.flyway.enabled=false", "logging.level.root=warn" })
class InFlightIsolationExperiment {

	private static final int REQUESTS = 2_000;

	private static final int FLOODERS = 4;

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final HttpClient client = HttpClient.newHttpClient();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	@Test
	void otherCallersLatencyWhenOneCallerIsAtItsInFlightLimit() throws Exception {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, counts)
					VALUES ('default', 'in-flight', 'API', 4, 'IN_FLIGHT')
					""");
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(this.policies.reload().succeeded()).isTrue();
		measure("198.51.100.200"); // warm-up
		for (int round = 1; round <= 2; round++) {
			long[] idle = measure("198.51.100.1");
			SlowHandlers.close();
			List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				held.add(send("/api/slow/" + i, "198.51.100.99"));
			}
			assertThat(SlowHandlers.awaitEntered(4)).isTrue();
			long[] holding = measure("198.51.100.2");
			AtomicBoolean flooding = new AtomicBoolean(true);
			AtomicLong refused = new AtomicLong();
			ExecutorService flood = Executors.newFixedThreadPool(FLOODERS);
			for (int i = 0; i < FLOODERS; i++) {
				flood.submit(() -> {
					while (flooding.get()) {
						if (send("/api/fast", "198.51.100.99").join().statusCode() == 429) {
							refused.incrementAndGet();
						}
					}
					return null;
				});
			}
			long[] flooded = measure("198.51.100.3");
			flooding.set(false);
			flood.shutdown();
			flood.awaitTermination(10, TimeUnit.SECONDS);
			SlowHandlers.open();
			for (CompletableFuture<HttpResponse<String>> response : held) {
				response.get(10, TimeUnit.SECONDS);
			}
			System.out.printf("round %d, another caller's GET /api/fast, %d requests: median / p99 in us%n"
					+ "  nobody else busy:                          %6d / %6d%n"
					+ "  one caller holding 50 slow requests (4 run): %5d / %6d%n"
					+ "  ... and flooding from %d threads (%d refused): %6d / %6d%n", round, REQUESTS,
					percentile(idle, 50), percentile(idle, 99), percentile(holding, 50), percentile(holding, 99),
					FLOODERS, refused.get(), percentile(flooded, 50), percentile(flooded, 99));
			System.out.printf("  the measured callers' own refusals so far: %d%n", this.measuredRefusals.get());
		}
	}

	private final AtomicLong measuredRefusals = new AtomicLong();

	private long[] measure(String address) {
		long[] micros = new long[REQUESTS];
		for (int i = 0; i < REQUESTS; i++) {
			long started = System.nanoTime();
			HttpResponse<String> response = send("/api/fast", address).join();
			micros[i] = (System.nanoTime() - started) / 1000;
			if (response.statusCode() == 429) {
				this.measuredRefusals.incrementAndGet();
			}
		}
		return micros;
	}

	private CompletableFuture<HttpResponse<String>> send(String path, String address) {
		return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("X-Forwarded-For", address)
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static long percentile(long[] values, int percentile) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[Math.min(sorted.length - 1, sorted.length * percentile / 100)];
	}

}
