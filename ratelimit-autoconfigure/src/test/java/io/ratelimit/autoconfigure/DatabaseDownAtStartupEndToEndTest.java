package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policy database is down when the application starts: it starts anyway, serves with
 * the built-in policies, says so, and takes up its tables and rows once the database
 * answers. (The application's own JPA is set up to start without a database too, which
 * is its choice to make.)
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.flyway.enabled=false", "spring.jpa.hibernate.ddl-auto=none",
				"spring.jpa.database-platform=org.hibernate.dialect.PostgreSQLDialect",
				"spring.jpa.properties.hibernate.boot.allow_jdbc_metadata_access=false",
				"spring.datasource.hikari.connection-timeout=500",
				"management.endpoints.web.exposure.include=health",
				"management.endpoint.health.show-details=always" })
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class DatabaseDownAtStartupEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@BeforeAll
	static void databaseDown() {
		// Runs before the application context starts.
		database.goDown();
	}

	@AfterAll
	static void databaseBack() {
		database.comeBack();
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	@Test
	void startWhenDatabaseDownThenBuiltInPoliciesServeUntilItReturns(CapturedOutput output) throws Exception {
		Http http = new Http(this.port);

		HttpResponse<String> response = http.get("/api/products");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=20;w=2");
		assertThat(this.policies.current().version()).isZero();
		assertThat(output.getAll()).contains("[RATELIMIT-W007]");
		HttpResponse<String> health = http.get("/actuator/health");
		assertThat(new ObjectMapper().readTree(health.body()).path("components").path("ratelimit").path("status")
			.asString()).isEqualTo("UNKNOWN");

		database.comeBack();
		boolean loaded = false;
		for (int attempt = 0; attempt < 10 && !loaded; attempt++) {
			loaded = this.policies.reload().succeeded();
		}
		assertThat(loaded).as("loaded within 10 reloads after the database returned").isTrue();
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/products', 3)");
		}
		assertThat(this.policies.reload().succeeded()).isTrue();

		assertThat(http.get("/api/products").headers().firstValue("RateLimit-Policy"))
			.hasValue("\"GET /api/products\";q=6;w=2");
		assertThat(new ObjectMapper().readTree(http.get("/actuator/health").body()).path("components")
			.path("ratelimit")
			.path("status")
			.asString()).isEqualTo("UP");
	}

}
