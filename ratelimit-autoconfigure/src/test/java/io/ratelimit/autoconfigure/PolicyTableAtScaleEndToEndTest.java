package io.ratelimit.autoconfigure;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy table of many tenants' rows through the admin endpoint, health and metrics over
 * real HTTP, on PostgreSQL: the listing a page at a time and filtered, and a table over
 * {@code ratelimit.policy.maximum-policies}. The test application seeds three rows; this
 * class adds twelve tenants' rows, so the table holds 15 of the 20 allowed. Policies change
 * only through the admin reload here.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.policy.refresh-interval=1h", "ratelimit.policy.notify.enabled=false",
				"ratelimit.policy.maximum-policies=20",
				"management.endpoints.web.exposure.include=ratelimit,health,metrics",
				"management.endpoint.health.show-details=always", "spring.jpa.open-in-view=false",
				"spring.web.error.include-message=always" })
@DirtiesContext
class PolicyTableAtScaleEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger clients = new AtomicInteger();

	private static final ObjectMapper json = new ObjectMapper();

	@LocalServerPort
	private int port;

	private Http http;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	/** Adds the tenants' rows once: the limiter's tables exist only once the application has started. */
	@BeforeEach
	void http() throws Exception {
		this.http = new Http(this.port);
		if (read("/actuator/ratelimit").path("page").path("totalElements").asLong() == 3) {
			sql("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) SELECT CASE WHEN g % 2 = 0 "
					+ "THEN 'GET /api/users/*' ELSE 'GET /api/products' END, 'tenant-' || lpad(g::text, 2, '0'), g "
					+ "FROM generate_series(1, 12) g");
			assertThat(send("POST", "/actuator/ratelimit/reload").statusCode()).isEqualTo(200);
		}
	}

	private HttpResponse<String> send(String method, String path) {
		int n = clients.incrementAndGet();
		return this.http.send(method, path, "X-Forwarded-For", "198.51." + (100 + n / 250) + "." + (1 + n % 250),
				TestShopApplication.TEST_USER, "operator");
	}

	private JsonNode read(String path) throws Exception {
		HttpResponse<String> response = send("GET", path);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static void sql(String statement) throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute(statement);
		}
	}

	private static String query(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private static List<String> texts(JsonNode array, String field) {
		List<String> texts = new ArrayList<>();
		array.forEach((node) -> texts.add(node.path(field).isMissingNode() ? null : node.path(field).asString()));
		return texts;
	}

	@Test
	void listingWhenNoPageAskedThenFirstPageOfAHundredWithTotals() throws Exception {
		JsonNode body = read("/actuator/ratelimit");

		assertThat(body.path("policies")).hasSize(15);
		assertThat(body.path("page").path("number").asInt()).isZero();
		assertThat(body.path("page").path("size").asInt()).isEqualTo(100);
		assertThat(body.path("page").path("totalElements").asLong()).isEqualTo(15);
		assertThat(body.path("page").path("totalPages").asLong()).isEqualTo(1);
		assertThat(body.path("rejectedRows").asInt()).isZero();
		assertThat(body.path("defaultPolicy").path("endpoint").asString()).isEqualTo("default");
	}

	@Test
	void listingWhenPageAndSizeThenThatSliceInTableOrder() throws Exception {
		List<String> all = texts(read("/actuator/ratelimit").path("policies"), "origin");

		JsonNode second = read("/actuator/ratelimit?page=1&size=4");
		JsonNode last = read("/actuator/ratelimit?page=3&size=4");
		JsonNode beyond = read("/actuator/ratelimit?page=9&size=4");

		assertThat(texts(second.path("policies"), "origin")).containsExactlyElementsOf(all.subList(4, 8));
		assertThat(second.path("page").path("totalPages").asLong()).isEqualTo(4);
		assertThat(texts(last.path("policies"), "origin")).containsExactlyElementsOf(all.subList(12, 15));
		assertThat(beyond.path("policies")).isEmpty();
		assertThat(beyond.path("page").path("totalElements").asLong()).isEqualTo(15);
	}

	@Test
	void listingWhenTenantOrEndpointFilterThenOnlyTheirPoliciesCounted() throws Exception {
		JsonNode tenant = read("/actuator/ratelimit?tenant=tenant-03");
		JsonNode endpoint = read("/actuator/ratelimit?endpoint=" + query("GET /api/users/*"));
		JsonNode both = read("/actuator/ratelimit?endpoint=" + query("GET /api/users/*") + "&tenant=acme");
		JsonNode none = read("/actuator/ratelimit?endpoint=" + query("GET /api/products") + "&tenant=tenant-02");

		assertThat(texts(tenant.path("policies"), "tenant")).containsExactly("tenant-03");
		assertThat(texts(tenant.path("policies"), "endpoint")).containsExactly("GET /api/products");
		assertThat(texts(endpoint.path("policies"), "endpoint")).hasSize(7).containsOnly("GET /api/users/*");
		assertThat(endpoint.path("page").path("totalElements").asLong()).isEqualTo(7);
		assertThat(texts(both.path("policies"), "tenant")).containsExactly("acme");
		assertThat(none.path("policies")).isEmpty();
		assertThat(none.path("page").path("totalPages").asLong()).isZero();
	}

	@Test
	void listingWhenPagingParametersInvalidThenBadRequestNamingThem() {
		HttpResponse<String> negativePage = send("GET", "/actuator/ratelimit?page=-1");
		HttpResponse<String> emptyPage = send("GET", "/actuator/ratelimit?size=0");
		HttpResponse<String> hugePage = send("GET", "/actuator/ratelimit?size=1001");
		HttpResponse<String> notANumber = send("GET", "/actuator/ratelimit?page=first");
		HttpResponse<String> badEndpoint = send("GET", "/actuator/ratelimit?endpoint=" + query("GET api"));

		assertThat(negativePage.statusCode()).isEqualTo(400);
		assertThat(negativePage.body()).contains("Invalid page -1");
		assertThat(emptyPage.statusCode()).isEqualTo(400);
		assertThat(emptyPage.body()).contains("Invalid size 0");
		assertThat(hugePage.statusCode()).isEqualTo(400);
		assertThat(hugePage.body()).contains("from 1 to 1000");
		assertThat(notANumber.statusCode()).isEqualTo(400);
		assertThat(badEndpoint.statusCode()).isEqualTo(400);
	}

	@Test
	void reloadWhenTableOverMaximumThenLastGoodPoliciesStayAndHealthAndGaugeSaySo() throws Exception {
		long version = read("/actuator/ratelimit").path("version").asLong();
		sql("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) SELECT 'GET /api/users/*', "
				+ "'extra-' || g, 1 FROM generate_series(1, 6) g");
		try {
			JsonNode reload = json.readTree(send("POST", "/actuator/ratelimit/reload").body());
			JsonNode health = read("/actuator/health/ratelimit");
			JsonNode gauge = read("/actuator/metrics/ratelimit.policy.over-limit");
			JsonNode explained = read("/actuator/ratelimit/explain?endpoint=" + query("GET /api/users/*")
					+ "&tenant=extra-1");

			assertThat(reload.path("succeeded").asBoolean()).isFalse();
			assertThat(reload.path("version").asLong()).isEqualTo(version);
			assertThat(reload.path("failure").asString()).contains("more than 20 policy rows",
					"ratelimit.policy.maximum-policies");
			assertThat(health.path("status").asString()).isEqualTo("UP");
			assertThat(health.path("details").path("degraded").asBoolean()).isTrue();
			assertThat(health.path("details").path("policiesFrozen").asBoolean()).isTrue();
			assertThat(health.path("details").path("maximumPolicies").asInt()).isEqualTo(20);
			assertThat(health.path("details").path("policies").asInt()).isEqualTo(15);
			assertThat(gauge.path("measurements").get(0).path("value").asDouble()).isEqualTo(1.0);
			assertThat(explained.path("policy").path("tenant").isMissingNode()).isTrue();
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE project_id LIKE 'extra-%'");
		}
		JsonNode reload = json.readTree(send("POST", "/actuator/ratelimit/reload").body());
		JsonNode health = read("/actuator/health/ratelimit");

		assertThat(reload.path("succeeded").asBoolean()).isTrue();
		assertThat(health.path("details").has("policiesFrozen")).isFalse();
		assertThat(read("/actuator/metrics/ratelimit.policy.over-limit").path("measurements").get(0).path("value")
			.asDouble()).isZero();
	}

}
