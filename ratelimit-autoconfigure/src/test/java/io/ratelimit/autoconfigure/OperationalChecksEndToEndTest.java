package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health contributor and the policy-table checks in a real application over real
 * HTTP, with policies in PostgreSQL. The test application's table has a {@code default}
 * row but no {@code UNKNOWN} row, and its rows name only templates it serves.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.policy.refresh-interval=1h", "management.endpoint.health.show-details=always",
				"spring.jpa.hibernate.ddl-auto=validate", "spring.jpa.open-in-view=false" })
@DirtiesContext
class OperationalChecksEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final ObjectMapper json = new ObjectMapper();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	private void sql(String statement) throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute(statement);
		}
	}

	private static int count(CapturedOutput output, String code) {
		return StringUtils.countOccurrencesOf(output.getAll(), "[RATELIMIT-" + code + "]");
	}

	@Test
	void healthWhenPoliciesLoadedThenRatelimitComponentUpWithDetails() throws Exception {
		HttpResponse<String> response = new Http(this.port).get("/actuator/health", "X-Forwarded-For",
				"198.51.100.200");

		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		JsonNode ratelimit = json.readTree(response.body()).path("components").path("ratelimit");
		assertThat(ratelimit.path("status").asString()).isEqualTo("UP");
		JsonNode details = ratelimit.path("details");
		assertThat(details.path("version").asLong()).isPositive();
		assertThat(details.path("loadedAt").asString()).isNotBlank();
		assertThat(details.path("age").isIntegralNumber()).isTrue();
		assertThat(details.path("policies").asInt()).isEqualTo(3);
		assertThat(details.path("rejectedRows").asInt()).isZero();
		assertThat(details.has("degraded")).isFalse();
	}

	@Test
	void reloadWhenRowNamesMissingTemplateThenRejectedAndWarnedOnceWhileOtherChecksStayQuiet(CapturedOutput output)
			throws Exception {
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/no-such-endpoint', 1)");
		try {
			this.policies.reload();
			this.policies.reload();

			assertThat(this.policies.current().rejected()).singleElement()
				.satisfies((row) -> assertThat(row.reason())
					.isEqualTo("the application has no endpoint 'GET /api/no-such-endpoint'"));
			assertThat(count(output, "W006")).isOne();
			assertThat(output.getAll()).contains("names the endpoint 'GET /api/no-such-endpoint'");
			// The application's own rows name real templates (the mappings were read after startup).
			assertThat(this.policies.current().policies()).hasSize(3);
			// The missing UNKNOWN row was reported at startup, not again on these reloads.
			assertThat(count(output, "W004")).isOne();
			assertThat(output.getAll()).doesNotContain("[RATELIMIT-W001]", "[RATELIMIT-W002]", "[RATELIMIT-W003]",
					"[RATELIMIT-W005]");
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE endpoint = 'GET /api/no-such-endpoint'");
			this.policies.reload();
		}
	}

}
