package io.ratelimit.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy row inserted into the table takes effect by itself, through the periodic
 * refresh, with no reload call.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "ratelimit.policy.refresh-interval=200ms")
@DirtiesContext
class PolicyRefreshEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Test
	void refreshWhenRowInsertedThenInEffectWithoutReload() throws Exception {
		Http http = new Http(this.port);
		assertThat(http.get("/api/orders/1/items").headers().firstValue("RateLimit-Policy"))
			.hasValue("\"default\";q=10;w=2");
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/orders/*/items', 50)");
		}

		// A bounded wait for the refresh, not a timing measurement: 200 ms is the interval.
		Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
		String policy = "";
		while (!policy.contains("GET /api/orders/*/items") && Instant.now().isBefore(deadline)) {
			Thread.sleep(50);
			policy = http.get("/api/orders/2/items").headers().firstValue("RateLimit-Policy").orElse("");
		}

		assertThat(policy).isEqualTo("\"GET /api/orders/*/items\";q=100;w=2");
	}

}
