package io.ratelimit.sample;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.bean.override.convention.TestBean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimit} Actuator endpoint of the sample, over real HTTP on PostgreSQL:
 * read, explain and reload answer only the {@code ADMIN} role, and reload is idempotent
 * and safe under concurrency.
 * <p>
 * The sample's {@code UserDetailsService} is replaced by {@link TestUsers}: the same
 * {@code admin}, plus a {@code viewer} without the role. The periodic refresh is pushed
 * out of the test's way, and the PostgreSQL change notifications are off (the test inserts
 * a row, whose notification would reload at a moment of its own), so that only the
 * test's reloads move the version.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policy.refresh-interval=1h", "ratelimit.policy.notify.enabled=false" })
@Import(TestUsers.CheapHashing.class)
@ActiveProfiles("postgres")
@AutoConfigureMetrics
class AdminEndpointSecurityTest {

	private static final String READ = "/actuator/ratelimit";

	private static final String EXPLAIN = "/actuator/ratelimit/explain?method=GET&path=/api/products&tenant=acme";

	private static final String RELOAD = "/actuator/ratelimit/reload";

	private static final ObjectMapper json = new ObjectMapper();

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@TestBean(methodName = "io.ratelimit.sample.TestUsers#adminAndViewer")
	private UserDetailsService users;

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	private RawExchange http;

	@BeforeEach
	void setUp() {
		this.http = new RawExchange(this.port);
	}

	@Test
	void ratelimitWhenAnonymousOrWrongCredentialsThenUnauthorized() {
		long version = this.policies.current().version();
		List<List<String[]>> callers = List.of(List.<String[]>of(), List.<String[]>of(basic("admin", "wrong-password")),
				List.<String[]>of(basic("admin", "")), List.<String[]>of(basic("nobody", TestUsers.adminPassword())),
				List.<String[]>of(basic(TestUsers.VIEWER, "wrong-password")), List.<String[]>of(header("Authorization", "Basic !!!")),
				// A user's bearer token is not an admin credential.
				List.<String[]>of(header("Authorization", "Bearer " + login())));
		for (List<String[]> caller : callers) {
			assertThat(this.http.send("GET", READ, caller, null).status()).isEqualTo(401);
			assertThat(this.http.send("GET", EXPLAIN, caller, null).status()).isEqualTo(401);
			assertThat(this.http.send("POST", RELOAD, caller, null).status()).isEqualTo(401);
		}
		assertThat(this.policies.current().version()).as("reloads that were refused").isEqualTo(version);
	}

	@Test
	void ratelimitWhenAuthenticatedWithoutAdminRoleThenForbidden() {
		long version = this.policies.current().version();
		List<String[]> viewer = List.<String[]>of(basic(TestUsers.VIEWER, TestUsers.VIEWER_PASSWORD));

		assertThat(this.http.send("GET", READ, viewer, null).status()).isEqualTo(403);
		assertThat(this.http.send("GET", EXPLAIN, viewer, null).status()).isEqualTo(403);
		assertThat(this.http.send("POST", RELOAD, viewer, null).status()).isEqualTo(403);
		assertThat(this.policies.current().version()).as("reloads that were refused").isEqualTo(version);
	}

	@Test
	void ratelimitWhenAdminThenReadExplainAndReloadAnswer() throws Exception {
		RawExchange.Response read = this.http.send("GET", READ, admin(), null);
		RawExchange.Response explain = this.http.send("GET", EXPLAIN, admin(), null);
		RawExchange.Response reload = this.http.send("POST", RELOAD, admin(), null);

		assertThat(read.status()).isEqualTo(200);
		assertThat(json.readTree(read.body()).path("policies").findValuesAsString("endpoint"))
			.contains("GET /api/reports/*", "POST /api/login");
		assertThat(explain.status()).isEqualTo(200);
		assertThat(json.readTree(explain.body()).path("policy").path("tenant").asString()).isEqualTo("acme");
		assertThat(new BigDecimal(json.readTree(explain.body()).path("policy").path("rps").asString()))
			.isEqualByComparingTo("100");
		assertThat(reload.status()).isEqualTo(200);
		assertThat(json.readTree(reload.body()).path("succeeded").asBoolean()).isTrue();
	}

	@Test
	void reloadWhenCalledTwiceWithoutTableChangeThenSamePoliciesAndNextVersions() throws Exception {
		JsonNode before = read();

		JsonNode first = json.readTree(this.http.send("POST", RELOAD, admin(), null).body());
		JsonNode afterFirst = read();
		JsonNode second = json.readTree(this.http.send("POST", RELOAD, admin(), null).body());
		JsonNode afterSecond = read();

		long version = before.path("version").asLong();
		assertThat(first.path("version").asLong()).isEqualTo(version + 1);
		assertThat(second.path("version").asLong()).isEqualTo(version + 2);
		assertThat(afterFirst.path("version").asLong()).isEqualTo(version + 1);
		assertThat(afterSecond.path("version").asLong()).isEqualTo(version + 2);
		assertThat(afterFirst.path("policies")).isEqualTo(before.path("policies"));
		assertThat(afterSecond.path("policies")).isEqualTo(before.path("policies"));
		assertThat(afterSecond.path("rejected")).isEqualTo(before.path("rejected"));
		assertThat(afterSecond.path("defaultPolicy")).isEqualTo(before.path("defaultPolicy"));
	}

	/**
	 * Sixteen reloads at once over HTTP, while anonymous shop traffic goes on. Reloads are
	 * serialized, so each one gets a version of its own. The reload endpoint is itself
	 * rate limited per address (default policy, burst 20), and the other tests of the
	 * class reload too: a policy row gives it room for the burst first. A bucket keeps its
	 * tokens when its limit changes, so the row's rate must refill it at once.
	 */
	@Test
	void reloadWhenSixteenConcurrentCallsThenEachGetsItsOwnVersion() throws Exception {
		String template = json.readTree(this.http
			.send("GET", "/actuator/ratelimit/explain?method=POST&path=" + RELOAD, admin(), null)
			.body()).path("endpoint").asString();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.executeUpdate(
					"INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('" + template + "', NULL, 100000)");
		}
		assertThat(this.policies.reload().succeeded()).isTrue();
		long initial = read().path("version").asLong();

		int reloads = 16;
		ExecutorService executor = Executors.newFixedThreadPool(reloads + 1);
		CountDownLatch start = new CountDownLatch(1);
		AtomicBoolean reloading = new AtomicBoolean(true);
		Map<Integer, Integer> trafficStatuses = new ConcurrentHashMap<>();
		try {
			Future<?> traffic = executor.submit(() -> {
				while (reloading.get()) {
					for (String path : List.of("/api/products", "/api/orders/1/items", "/api/reports/3")) {
						trafficStatuses.merge(this.http.send("GET", path, List.of(), null).status(), 1, Integer::sum);
					}
				}
				return null;
			});
			List<Future<RawExchange.Response>> answers = new ArrayList<>();
			for (int i = 0; i < reloads; i++) {
				answers.add(executor.submit(() -> {
					start.await();
					return this.http.send("POST", RELOAD, admin(), null);
				}));
			}
			start.countDown();
			Set<Long> versions = new TreeSet<>();
			for (Future<RawExchange.Response> answer : answers) {
				RawExchange.Response response = answer.get();
				assertThat(response.status()).as(response.body()).isEqualTo(200);
				JsonNode body = json.readTree(response.body());
				assertThat(body.path("succeeded").asBoolean()).isTrue();
				versions.add(body.path("version").asLong());
			}
			reloading.set(false);
			traffic.get();

			System.out.printf("concurrent reloads: versions %s, traffic meanwhile by status %s%n", versions,
					new TreeMap<>(trafficStatuses));
			assertThat(versions).containsExactlyElementsOf(
					LongStream.rangeClosed(initial + 1, initial + reloads).boxed().toList());
			assertThat(read().path("version").asLong()).isEqualTo(initial + reloads);
			assertThat(trafficStatuses).isNotEmpty();
			assertThat(trafficStatuses.keySet()).allSatisfy((status) -> assertThat(status).isLessThan(500));
		}
		finally {
			reloading.set(false);
			executor.shutdownNow();
		}
	}

	private JsonNode read() throws Exception {
		RawExchange.Response response = this.http.send("GET", READ, admin(), null);
		assertThat(response.status()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private String login() {
		RawExchange.Response response = this.http.send("POST", "/api/login",
				List.<String[]>of(header("Content-Type", "application/json")),
				"{\"username\":\"alice\",\"password\":\"wonderland\"}".getBytes(StandardCharsets.UTF_8));
		assertThat(response.status()).isEqualTo(200);
		return response.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");
	}

	private static List<String[]> admin() {
		return List.<String[]>of(basic("admin", TestUsers.adminPassword()));
	}

	private static String[] basic(String user, String password) {
		return header("Authorization", "Basic "
				+ Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
	}

	private static String[] header(String name, String value) {
		return new String[] { name, value };
	}

}
