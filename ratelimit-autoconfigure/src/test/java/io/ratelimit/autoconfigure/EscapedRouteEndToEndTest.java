package io.ratelimit.autoconfigure;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Routes whose patterns hold characters a template cannot hold as they are (non-ASCII, a
 * space, {@code |}, {@code [}) are limited like any other, under their percent-escaped
 * template, whatever the failure mode: the limiter must never fail on them.
 */
class EscapedRouteEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	private static final AtomicInteger clients = new AtomicInteger();

	static final String CAFE = "GET /api/caf%C3%A9";

	static final String TAG = "GET /api/tags/a%20b%7C%5Bc%5D/*";

	abstract static class EscapedRoutes {

		@LocalServerPort
		private int port;

		@Autowired
		private ReloadablePolicies policies;

		@BeforeEach
		void policies() throws SQLException {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("DELETE FROM rate_limit_policy WHERE endpoint IN ('" + CAFE + "', '" + TAG + "')");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('" + CAFE + "', 1), ('"
						+ TAG + "', 1)");
			}
			assertThat(this.policies.reload().snapshot().rejected()).isEmpty();
		}

		@ParameterizedTest(name = "[{index}] {0}")
		@CsvSource(delimiterString = "=>", textBlock = """
				/api/caf%C3%A9                      => GET /api/caf%C3%A9
				/api/tags/a%20b%7C%5Bc%5D/7         => GET /api/tags/a%20b%7C%5Bc%5D/*
				""")
		void getWhenRouteHoldsCharactersTemplatesEscapeThenLimitedAtItsPolicy(String path, String template) {
			Http http = new Http(this.port);
			String client = "198.51.100." + clients.incrementAndGet();

			HttpResponse<String> first = http.get(path, "X-Forwarded-For", client);

			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"" + template + "\";q=2;w=2");
			assertThat(first.headers().firstValue("RateLimit")).hasValue("\"" + template + "\";r=1;t=1");
			assertThat(http.get(path, "X-Forwarded-For", client).statusCode()).isEqualTo(200);
			HttpResponse<String> rejected = http.get(path, "X-Forwarded-For", client);
			assertThat(rejected.statusCode()).isEqualTo(429);
			assertThat(rejected.body()).contains("\"endpoint\":\"" + template + "\"");
		}

		@Test
		void explainWhenPathOfEscapedRouteThenShowsItsTemplateAndPolicy() {
			String query = "method=GET&path=" + URLEncoder.encode("/api/caf%C3%A9", StandardCharsets.UTF_8);

			HttpResponse<String> explained = new Http(this.port).get("/actuator/ratelimit/explain?" + query);

			assertThat(explained.statusCode()).isEqualTo(200);
			assertThat(explained.body()).contains("\"endpoint\":\"" + CAFE + "\"")
				.contains("\"policy\":{\"endpoint\":\"" + CAFE + "\"");
		}

	}

	@Nested
	@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32", "ratelimit.burst-factor=2",
					"ratelimit.policy.refresh-interval=1h", "management.endpoints.web.exposure.include=ratelimit",
					"spring.jpa.open-in-view=false" })
	@DirtiesContext
	class FailOpen extends EscapedRoutes {

	}

	@Nested
	@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32", "ratelimit.burst-factor=2",
					"ratelimit.failure-mode=closed", "ratelimit.policy.refresh-interval=1h",
					"management.endpoints.web.exposure.include=ratelimit", "spring.jpa.open-in-view=false" })
	@DirtiesContext
	class FailClosed extends EscapedRoutes {

	}

}
