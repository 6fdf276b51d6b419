package io.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.inflightapp.InFlightApiApplication;
import io.ratelimit.autoconfigure.inflightapp.SlowHandlers;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.AfterEach;
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
import static org.awaitility.Awaitility.await;

/**
 * In-flight limits over HTTP on a real server, with the rows in PostgreSQL: every caller at
 * most 2 requests in progress across the API, tenant {@code acme} 4, plan {@code gold} 3,
 * tenant {@code initech} 1 across the group of slow and deferred endpoints, and a shadow
 * limit of 1 on one endpoint. The slow handlers block until the test lets them
 * go, so the requests in progress are exactly the ones the test holds. Each test is a caller
 * (an address) of its own, so tests never share permits; buckets run on a fake clock, so no
 * token comes back while a test runs.
 */
@SpringBootTest(classes = InFlightApiApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.api-key.hash-secret=" + InFlightLimitsEndToEndTest.HASH_SECRET,
				"ratelimit.policy.default-rps=100", "ratelimit.groups.slow=GET /api/slow/*, GET /api/deferred/*",
				"management.endpoints.web.exposure.include=ratelimit,health",
				"management.endpoint.health.show-details=always", "spring.jpa.open-in-view=false",
				"spring.flyway.enabled=false" })
@Import(InFlightLimitsEndToEndTest.FakeClockBuckets.class)
@DirtiesContext
class InFlightLimitsEndToEndTest {

	static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	private static final FakeTimeSource time = new FakeTimeSource();

	private static final AtomicInteger addresses = new AtomicInteger();

	private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private static final String POLICY = "\"in-flight\";q=2;qu=\"concurrent-requests\"";

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

	private static synchronized void insertRowsOnce() throws SQLException {
		if (rowsInserted) {
			return;
		}
		rowsInserted = true;
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("""
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, plan, mode, limit_name, applies_to, limit_count, counts)
					VALUES
					    ('default',            NULL,   NULL,   'ENFORCE', 'in-flight',         'API',      2, 'IN_FLIGHT'),
					    ('default',            'acme', NULL,   'ENFORCE', 'in-flight',         'API',      4, 'IN_FLIGHT'),
					    ('default',            NULL,   'gold', 'ENFORCE', 'in-flight',         'API',      3, 'IN_FLIGHT'),
					    ('GET /api/watched/*', NULL,   NULL,   'SHADOW',  'watched-in-flight', 'ENDPOINT', 1, 'IN_FLIGHT')
					""");
			sql.execute("""
					INSERT INTO rate_limit_policy
					    (endpoint, project_id, limit_name, applies_to, endpoint_group, limit_count, counts)
					VALUES ('default', 'initech', 'slow-in-flight', 'GROUP', 'slow', 1, 'IN_FLIGHT')
					""");
			sql.execute("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/fast', NULL, 5)");
			KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
			sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
					+ hasher.hashHex("acme-key") + "', 'acme-user', 'acme')");
			sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id, plan) VALUES ('"
					+ hasher.hashHex("gold-key") + "', 'gold-user', 'globex', 'gold')");
			sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
					+ hasher.hashHex("initech-key") + "', 'initech-user', 'initech')");
		}
	}

	@BeforeEach
	void reload() throws SQLException {
		insertRowsOnce();
		assertThat(this.policies.reload().succeeded()).isTrue();
		assertThat(this.policies.current().rejected()).isEmpty();
		this.apiKeys.reload();
		this.http = new Http(this.port);
		this.address = "198.51.100." + addresses.incrementAndGet();
		SlowHandlers.close();
	}

	@AfterEach
	void letEverythingGo() {
		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
	}

	private double permitsHeld() {
		return this.meters.get("ratelimit.in-flight.permits").tag("store", "local").gauge().value();
	}

	private CompletableFuture<HttpResponse<String>> sendAsync(String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.header("X-Forwarded-For", this.address);
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path, String... headers) throws Exception {
		return sendAsync(path, headers).get(30, TimeUnit.SECONDS);
	}

	private List<CompletableFuture<HttpResponse<String>>> hold(int count, String path, String... headers)
			throws InterruptedException {
		int before = SlowHandlers.entered();
		List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			held.add(sendAsync(path + i, headers));
		}
		assertThat(SlowHandlers.awaitEntered(before + count)).as("%d more handlers entered", count).isTrue();
		return held;
	}

	private static String header(HttpResponse<String> response, String name) {
		return response.headers().firstValue(name).orElse("none");
	}

	private double decisions(String endpoint, String outcome) {
		Counter counter = this.meters.find("ratelimit.decisions")
			.tag("endpoint", endpoint)
			.tag("outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Test
	void getWhenCallerSendsFiftySlowRequestsThenItsLimitRunAndTheRestAreRefusedWhileOthersAreServed()
			throws Exception {
		List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			sent.add(sendAsync("/api/slow/" + i));
		}
		assertThat(SlowHandlers.awaitEntered(2)).isTrue();
		await().atMost(Duration.ofSeconds(20)).until(() -> sent.stream().filter(CompletableFuture::isDone).count() == 48);

		assertThat(SlowHandlers.entered()).isEqualTo(2);
		List<HttpResponse<String>> refused = sent.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join).toList();
		assertThat(refused).hasSize(48).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(429);
			assertThat(header(response, "Retry-After")).isEqualTo("1");
			assertThat(header(response, "RateLimit-Policy")).isEqualTo(POLICY);
			assertThat(header(response, "RateLimit")).isEqualTo("\"in-flight\";r=0;t=1");
			assertThat(header(response, "Content-Type")).isEqualTo("application/problem+json");
			assertThat(response.body()).contains("\"status\":429", "\"policy\":\"in-flight\"",
					"\"endpoint\":\"GET /api/slow/*\"");
		});
		assertThat(permitsHeld()).isEqualTo(2);
		// Another caller is served at once, slow or fast.
		String holder = this.address;
		this.address = "198.51.100." + addresses.incrementAndGet();
		CompletableFuture<HttpResponse<String>> other = sendAsync("/api/slow/other");
		assertThat(SlowHandlers.awaitEntered(3)).isTrue();
		long started = System.nanoTime();
		HttpResponse<String> fast = get("/api/fast");
		assertThat(fast.statusCode()).isEqualTo(200);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));

		SlowHandlers.open();
		for (CompletableFuture<HttpResponse<String>> response : sent) {
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isIn(200, 429);
		}
		assertThat(other.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		this.address = holder;
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenGroupHasAnInFlightLimitThenItsEndpointsShareItAndOthersDoNot() throws Exception {
		hold(1, "/api/slow/", "X-API-Key", "initech-key");

		// Another endpoint of the group: the group's one request is in progress.
		HttpResponse<String> refused = get("/api/deferred/1", "X-API-Key", "initech-key");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.body()).contains("\"policy\":\"slow-in-flight\"");
		assertThat(header(refused, "RateLimit")).contains("\"slow-in-flight\";r=0;t=1");
		assertThat(header(refused, "Retry-After")).isEqualTo("1");
		// Outside the group only the API-wide limit of 2 counts, and one is left.
		assertThat(get("/api/fast", "X-API-Key", "initech-key").statusCode()).isEqualTo(200);
		// The group's limit is the tenant's: another caller holds as many as the API allows.
		hold(2, "/api/slow/other-");

		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(get("/api/slow/again", "X-API-Key", "initech-key").statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenHandlerFailsThenItsPermitIsReleasedOnceAndTheErrorDispatchReleasesNothingMore() throws Exception {
		hold(1, "/api/slow/");
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/fail").statusCode()).isEqualTo(500);
		}

		// One permit is still held: the failures gave theirs back, and took nothing of it.
		hold(1, "/api/slow/second-");
		assertThat(get("/api/fast").statusCode()).isEqualTo(429);
		assertThat(permitsHeld()).isEqualTo(2);
	}

	@Test
	void getWhenAsyncRequestsCompleteThenTheirPermitsAreReleasedOnlyThen() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> deferred = hold(2, "/api/deferred/");

		assertThat(get("/api/fast").statusCode()).isEqualTo(429);
		assertThat(permitsHeld()).isEqualTo(2);
		SlowHandlers.open();
		for (CompletableFuture<HttpResponse<String>> response : deferred) {
			assertThat(response.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenAsyncRequestsTimeOutThenTheirPermitsAreReleased() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> timedOut = hold(2, "/api/deferred-timeout?");

		for (CompletableFuture<HttpResponse<String>> response : timedOut) {
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenAsyncTasksTimeOutAndStopWhenInterruptedThenTheirPermitsAreReleased() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> timedOut = hold(2, "/api/task-timeout/");

		for (CompletableFuture<HttpResponse<String>> response : timedOut) {
			// The timeout's 503, or the 500 of the interrupted task, whichever Spring MVC takes.
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isIn(500, 503);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenAsyncTasksTimeOutButRunOnThenTheirPermitsAreHeldUntilTheyReturn() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> timedOut = hold(2, "/api/stubborn-task/");

		for (CompletableFuture<HttpResponse<String>> response : timedOut) {
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
		}
		// The caller got its answers, but its two tasks still run: it is still at its limit.
		assertThat(permitsHeld()).isEqualTo(2);
		assertThat(get("/api/fast").statusCode()).isEqualTo(429);

		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenATaskStartedOnALaterAsyncDispatchRunsOnThenItsPermitIsHeldUntilItReturns() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> sent = hold(1, "/api/deferred-task/");

		assertThat(sent.get(0).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
		assertThat(permitsHeld()).as("the task still runs").isEqualTo(1);

		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenRequestsShareOneCallableInstanceThenEachReleasesItsOwnPermits() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> held = hold(2, "/api/shared-task/");

		SlowHandlers.open();
		for (CompletableFuture<HttpResponse<String>> response : held) {
			assertThat(response.get(10, TimeUnit.SECONDS).body()).isEqualTo("shared");
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenTheExecutorRejectsTheTaskThenThePermitIsReleased() throws Exception {
		assertThat(get("/api/rejected-task/1").statusCode()).isGreaterThanOrEqualTo(500);

		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenATaskTimesOutBeforeItStartsThenItNeverRunsAndHoldsNothing() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> sent = hold(1, "/api/queued-task/");
		// The executor's one thread is taken: the second task waits in its queue, and times out.
		sent.add(sendAsync("/api/queued-task/1"));
		for (CompletableFuture<HttpResponse<String>> response : sent) {
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
		}
		assertThat(permitsHeld()).as("the running task's").isEqualTo(1);

		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(SlowHandlers.entered()).as("tasks that ran").isEqualTo(1);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenClientAbortsWhileTheResponseIsWrittenThenThePermitIsReleased() throws Exception {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 10_000);
			OutputStream out = socket.getOutputStream();
			out.write(("GET /api/large HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: " + this.address + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			assertThat(SlowHandlers.awaitEntered(1)).isTrue();
			assertThat(permitsHeld()).isEqualTo(1);
			// Reset, not a graceful close: the handler's writes fail at once.
			socket.setSoLinger(true, 0);
		}
		SlowHandlers.open();

		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		assertThat(header(get("/api/fast"), "RateLimit")).endsWith("\"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenRefusedByTheInFlightLimitThenNoRateTokenIsSpent() throws Exception {
		hold(2, "/api/slow/");
		for (int i = 0; i < 5; i++) {
			assertThat(get("/api/fast").statusCode()).isEqualTo(429);
		}
		SlowHandlers.open();
		await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);

		// A bucket of 10 (rate 5, burst 2) on a clock that does not move: only this request took one.
		HttpResponse<String> admitted = get("/api/fast");
		assertThat(admitted.statusCode()).isEqualTo(200);
		assertThat(header(admitted, "RateLimit-Policy")).isEqualTo("\"GET /api/fast\";q=10;w=2, " + POLICY);
		assertThat(header(admitted, "RateLimit")).isEqualTo("\"GET /api/fast\";r=9;t=1, \"in-flight\";r=1;t=0");
	}

	@Test
	void getWhenRefusedByARateLimitThenNoPermitIsHeld() throws Exception {
		for (int i = 0; i < 10; i++) {
			assertThat(get("/api/fast").statusCode()).isEqualTo(200);
			// The client has its response a moment before the server thread returns through
			// the filter and gives the permit back: wait for it, or a loaded host refuses the next.
			await().atMost(Duration.ofSeconds(10)).until(() -> permitsHeld() == 0);
		}
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> refused = get("/api/fast");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.body()).contains("\"policy\":\"GET /api/fast\"");
		}

		assertThat(permitsHeld()).isZero();
		hold(2, "/api/slow/");
	}

	@Test
	void getWhenTenantOrPlanHasARowThenItsOwnLimitApplies() throws Exception {
		assertThat(header(get("/api/fast", "X-API-Key", "gold-key"), "RateLimit-Policy"))
			.endsWith("\"in-flight\";q=3;qu=\"concurrent-requests\"");
		hold(4, "/api/slow/", "X-API-Key", "acme-key");

		HttpResponse<String> refused = get("/api/fast", "X-API-Key", "acme-key");

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(header(refused, "RateLimit-Policy")).isEqualTo("\"in-flight\";q=4;qu=\"concurrent-requests\"");
		// The key's permits are its own, not its address's.
		assertThat(get("/api/fast").statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenCallerAtItsLimitTriesAnotherPathShapeOrACredentialThatIsNoneThenStillRefused() throws Exception {
		hold(2, "/api/slow/");

		assertThat(get("/api/slow/%33").statusCode()).isEqualTo(429);
		assertThat(get("/api/slow/3;jsessionid=A1").statusCode()).isEqualTo(429);
		assertThat(get("/api/fast?slow=1").statusCode()).isEqualTo(429);
		assertThat(get("/api/fast", "X-API-Key", "not-a-key").statusCode()).isEqualTo(429);
		assertThat(get("/api/fast", "Authorization", "Bearer not.a.token").statusCode()).isEqualTo(429);
		assertThat(SlowHandlers.entered()).isEqualTo(2);
	}

	@Test
	void getWhenShadowInFlightLimitIsFullThenTheRequestPassesAndIsCounted() throws Exception {
		double shadowBefore = decisions("GET /api/watched/*", "shadow_rejected");
		hold(1, "/api/watched/");

		CompletableFuture<HttpResponse<String>> second = sendAsync("/api/watched/second");

		assertThat(SlowHandlers.awaitEntered(2)).isTrue();
		assertThat(decisions("GET /api/watched/*", "shadow_rejected")).isEqualTo(shadowBefore + 1);
		assertThat(permitsHeld()).isEqualTo(3);
		SlowHandlers.open();
		HttpResponse<String> passed = second.get(10, TimeUnit.SECONDS);
		assertThat(passed.statusCode()).isEqualTo(200);
		assertThat(header(passed, "RateLimit-Policy")).isEqualTo("\"default\";q=200;w=2, " + POLICY);
	}

	@Test
	void explainAndHealthWhenInFlightLimitsThenTheyShowTheLimitAndThePermitsHeld() throws Exception {
		hold(2, "/api/slow/");

		JsonNode explained = new ObjectMapper().readTree(this.http
			.get("/actuator/ratelimit/explain?method=GET&path=/api/slow/1&tenant=acme")
			.body());
		JsonNode health = new ObjectMapper().readTree(this.http.get("/actuator/health").body());

		assertThat(explained.path("layers")).singleElement().satisfies((layer) -> {
			assertThat(layer.path("limit").asString()).isEqualTo("in-flight");
			assertThat(layer.path("applies").asBoolean()).isTrue();
			assertThat(layer.path("policy").path("counts").asString()).isEqualTo("IN_FLIGHT");
			assertThat(layer.path("policy").path("quota").asLong()).isEqualTo(4);
			assertThat(layer.path("policy").path("window").asLong()).isZero();
			assertThat(layer.path("policy").path("tenant").asString()).isEqualTo("acme");
		});
		// The two held, and the health request itself: the Actuator's endpoints are the API's too.
		JsonNode inFlight = health.path("components").path("ratelimit").path("details").path("inFlight");
		assertThat(inFlight.path("permits").asLong()).as(health.toString()).isEqualTo(3);
		assertThat(inFlight.path("keys").asLong()).isEqualTo(2);
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
