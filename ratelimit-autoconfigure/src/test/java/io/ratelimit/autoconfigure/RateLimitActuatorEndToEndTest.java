package io.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimit} Actuator endpoint and the metrics in a real application over real
 * HTTP, with policies in PostgreSQL. Every request comes from a client address of its own
 * (through a trusted proxy on loopback), so the admin requests are never limited, except
 * where a test means it. Policies change only through the admin reload here (no periodic
 * refresh, no change notifications), so versions count admin reloads exactly.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.policy.refresh-interval=1h", "ratelimit.policy.notify.enabled=false",
				"management.endpoints.web.exposure.include=ratelimit,metrics",
				"spring.jpa.hibernate.ddl-auto=validate", "spring.jpa.open-in-view=false" })
@DirtiesContext
class RateLimitActuatorEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger clients = new AtomicInteger();

	private static final ObjectMapper json = new ObjectMapper();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@Autowired
	private ReloadablePolicies policies;

	@LocalServerPort
	private int port;

	@Autowired
	private MeterRegistry meters;

	private Http http;

	@BeforeEach
	void http() {
		this.http = new Http(this.port);
	}

	private static String newClient() {
		int n = clients.incrementAndGet();
		return "198.51." + (100 + n / 250) + "." + (1 + n % 250);
	}

	private HttpResponse<String> send(String method, String path) {
		return this.http.send(method, path, "X-Forwarded-For", newClient(), TestShopApplication.TEST_USER, "operator");
	}

	private JsonNode read(String method, String path) throws Exception {
		HttpResponse<String> response = send(method, path);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static String query(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private void sql(String statement) throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute(statement);
		}
	}

	private static List<String> texts(JsonNode array, String field) {
		List<String> texts = new ArrayList<>();
		array.forEach((node) -> texts.add(absent(node.path(field)) ? null : node.path(field).asString()));
		return texts;
	}

	/** Actuator leaves null fields out. */
	private static boolean absent(JsonNode node) {
		return node.isMissingNode() || node.isNull();
	}

	private static BigDecimal rps(JsonNode policy) {
		return new BigDecimal(policy.path("rps").asString());
	}

	@Test
	void readWhenExposedThenSnapshotPoliciesAndBucketStore() throws Exception {
		// Two requests in a row (the policy refills one in half a second) give a client a bucket.
		String client = newClient();
		for (int i = 0; i < 2; i++) {
			this.http.send("GET", "/api/products", "X-Forwarded-For", client, TestShopApplication.TEST_USER, "operator");
		}

		JsonNode body = read("GET", "/actuator/ratelimit");

		assertThat(body.path("version").asLong()).isPositive();
		assertThat(body.path("loadedAt").asString()).isNotBlank();
		assertThat(texts(body.path("policies"), "endpoint")).contains("GET /api/products", "GET /api/users/*",
				"default");
		JsonNode products = body.path("policies").findParents("endpoint").stream()
			.filter((policy) -> policy.path("endpoint").asString().equals("GET /api/products"))
			.findFirst()
			.orElseThrow();
		assertThat(absent(products.path("tenant"))).isTrue();
		assertThat(rps(products)).isEqualByComparingTo("2");
		assertThat(products.path("mode").asString()).isEqualTo("ENFORCE");
		assertThat(products.path("scope").asString()).isEqualTo("LOCAL");
		assertThat(products.path("origin").asString()).startsWith("row ");
		assertThat(body.path("unknownPolicy").path("origin").asString()).isEqualTo("built-in");
		assertThat(absent(body.path("lastFailure"))).isTrue();
		assertThat(body.path("buckets").path("entries").asLong()).isPositive();
		assertThat(body.path("buckets").has("evictions")).isTrue();
	}

	@Test
	void explainWhenMethodPathAndTenantThenTemplateChainAndTenantPolicy() throws Exception {
		JsonNode body = read("GET", "/actuator/ratelimit/explain?method=GET&path=/api/users/42&tenant=acme");

		assertThat(body.path("endpoint").asString()).isEqualTo("GET /api/users/*");
		assertThat(body.path("tenant").asString()).isEqualTo("acme");
		assertThat(body.path("chain")).hasSize(1);
		assertThat(body.path("chain").get(0).path("found").path("tenant").asString()).isEqualTo("acme");
		assertThat(body.path("policy").path("endpoint").asString()).isEqualTo("GET /api/users/*");
		assertThat(rps(body.path("policy"))).isEqualByComparingTo("50");
	}

	@Test
	void explainWhenOtherTenantThenWalksToDefaultRow() throws Exception {
		JsonNode body = read("GET", "/actuator/ratelimit/explain?method=GET&path=/api/users/42&tenant=globex");

		assertThat(body.path("chain")).hasSize(4);
		assertThat(texts(body.path("chain"), "endpoint")).containsExactly("GET /api/users/*", "GET /api/users/*",
				"default", "default");
		assertThat(texts(body.path("chain"), "tenant")).containsExactly("globex", null, "globex", null);
		assertThat(absent(body.path("chain").get(2).path("found"))).isTrue();
		assertThat(body.path("policy").path("endpoint").asString()).isEqualTo("default");
		assertThat(rps(body.path("policy"))).isEqualByComparingTo("5");
	}

	@Test
	void explainWhenTemplateGivenOrPathServedByNoHandlerThenAnswersForIt() throws Exception {
		JsonNode byTemplate = read("GET",
				"/actuator/ratelimit/explain?endpoint=" + query("GET /api/products"));
		JsonNode unknown = read("GET", "/actuator/ratelimit/explain?method=GET&path=/no/such/path");
		HttpResponse<String> malformed = send("GET", "/actuator/ratelimit/explain?endpoint=" + query("GET api"));

		assertThat(rps(byTemplate.path("policy"))).isEqualByComparingTo("2");
		assertThat(unknown.path("endpoint").asString()).isEqualTo("UNKNOWN");
		assertThat(unknown.path("policy").path("endpoint").asString()).isEqualTo("UNKNOWN");
		assertThat(malformed.statusCode()).isEqualTo(400);
	}

	@Test
	void reloadWhenCallerNotAuthenticatedThenForbiddenAndNothingReloaded() {
		long before = this.policies.current().version();

		HttpResponse<String> response = this.http.send("POST", "/actuator/ratelimit/reload", "X-Forwarded-For",
				newClient());

		assertThat(response.statusCode()).isEqualTo(403);
		assertThat(this.policies.current().version()).isEqualTo(before);
	}

	@Test
	void reloadWhenRowInsertedThenNewRowAndNextVersion() throws Exception {
		long before = read("GET", "/actuator/ratelimit").path("version").asLong();
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit, mode) VALUES ('GET /api/orders/*/items', 1, 'SHADOW')");
		try {
			JsonNode reload = read("POST", "/actuator/ratelimit/reload");

			assertThat(reload.path("succeeded").asBoolean()).isTrue();
			assertThat(reload.path("version").asLong()).isEqualTo(before + 1);
			assertThat(reload.path("policies").asInt()).isEqualTo(4);
			JsonNode after = read("GET", "/actuator/ratelimit");
			assertThat(after.path("version").asLong()).isEqualTo(before + 1);
			assertThat(texts(after.path("policies"), "endpoint")).contains("GET /api/orders/*/items");
			assertThat(read("GET", "/actuator/ratelimit/explain?method=GET&path=/api/orders/7/items")
				.path("policy")
				.path("mode")
				.asString()).isEqualTo("SHADOW");
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE endpoint = 'GET /api/orders/*/items'");
			send("POST", "/actuator/ratelimit/reload");
		}
	}

	@Test
	void reloadWhenRowBrokenThenItIsAmongRejectedRows() throws Exception {
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/widgets', -1)");
		try {
			JsonNode reload = read("POST", "/actuator/ratelimit/reload");
			JsonNode after = read("GET", "/actuator/ratelimit");

			for (JsonNode body : List.of(reload, after)) {
				assertThat(body.path("rejected")).hasSize(1);
				JsonNode row = body.path("rejected").get(0);
				assertThat(row.path("endpoint").asString()).isEqualTo("GET /api/widgets");
				assertThat(rps(row)).isEqualByComparingTo("-1");
				assertThat(row.path("reason").asString()).contains("must be positive");
			}
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE endpoint = 'GET /api/widgets'");
			send("POST", "/actuator/ratelimit/reload");
		}
	}

	@Test
	void reloadWhenUnknownOperationThenBadRequest() {
		assertThat(send("POST", "/actuator/ratelimit/refresh").statusCode()).isEqualTo(400);
	}

	@Test
	void decisionsWhenRequestsOverTheLimitThenCountedByTemplateAndOutcome() {
		double allowed = decisions("GET /api/products", "allowed");
		double rejected = decisions("GET /api/products", "rejected");
		String client = newClient();

		int statusOfLast = 0;
		for (int i = 0; i < 5; i++) {
			statusOfLast = this.http.get("/api/products", "X-Forwarded-For", client).statusCode();
		}

		assertThat(statusOfLast).isEqualTo(429);
		assertThat(decisions("GET /api/products", "allowed") - allowed).isEqualTo(4);
		assertThat(decisions("GET /api/products", "rejected") - rejected).isEqualTo(1);
		assertThat(this.meters.find("ratelimit.decisions").tag("endpoint", "GET /api/products").counters())
			.extracting((counter) -> counter.getId().getTag("outcome"))
			.containsExactlyInAnyOrder("allowed", "rejected", "shadow_rejected", "unknown_endpoint");
	}

	@Test
	void decisionsWhenHandlerFailsThenErrorPageDispatchNotDecidedAgain() {
		double before = allDecisions();

		HttpResponse<String> response = this.http.get("/api/failures", "X-Forwarded-For", newClient());

		assertThat(response.statusCode()).isEqualTo(500);
		// The container forwards the failed request to /error; only the request itself is charged.
		assertThat(allDecisions() - before).isEqualTo(1);
		assertThat(decisions("GET /api/failures", "allowed")).isEqualTo(1);
	}

	@Test
	void metricsWhenScrapedOverActuatorThenPolicyAndBucketMetersPresent() throws Exception {
		send("POST", "/actuator/ratelimit/reload");

		JsonNode reloads = read("GET", "/actuator/metrics/ratelimit.policy.reloads?tag=result:success");
		JsonNode entries = read("GET", "/actuator/metrics/ratelimit.buckets.entries");
		JsonNode age = read("GET", "/actuator/metrics/ratelimit.policy.snapshot.age");

		assertThat(reloads.path("measurements").get(0).path("value").asDouble()).isGreaterThanOrEqualTo(2);
		assertThat(entries.path("measurements").get(0).path("value").asDouble()).isPositive();
		assertThat(age.path("baseUnit").asString()).isEqualTo("seconds");
		assertThat(age.path("description").asString()).isNotBlank();
	}

	private double allDecisions() {
		return this.meters.find("ratelimit.decisions").counters().stream().mapToDouble(Counter::count).sum();
	}

	private double decisions(String endpoint, String outcome) {
		Counter counter = this.meters.find("ratelimit.decisions").tags("endpoint", endpoint, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

}
