package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.health.RateLimitHealthIndicator;
import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.TestRequest;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policy database going away while the application runs: the last good policies and
 * API keys keep serving, the failure shows in the reload result and the metrics, and everything recovers
 * when the database returns. The change listener, which reloads by itself after it
 * reconnects, is off here (it has a test of its own), so reloads and versions add up. The
 * periodic refresh still runs (every 30 s), so a failure count may grow by more than the
 * test's own reload if it happens to fall in the outage.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policy.notify.enabled=false", "spring.datasource.hikari.connection-timeout=500",
				"spring.datasource.hikari.validation-timeout=250",
				"ratelimit.api-key.hash-secret=" + DatabaseOutageEndToEndTest.HASH_SECRET })
@AutoConfigureMetrics
@DirtiesContext
class DatabaseOutageEndToEndTest {

	static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

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
	private IdentityResolver identities;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private RateLimitHealthIndicator health;

	private double reloads(String result) {
		return reloads("ratelimit.policy.reloads", result);
	}

	private double reloads(String name, String result) {
		FunctionCounter counter = this.meters.find(name).tag("result", result).functionCounter();
		return (counter != null) ? counter.count() : -1;
	}

	@Test
	void reloadWhenDatabaseDownThenLastGoodPoliciesServeAndFailureIsCounted() {
		Http http = new Http(this.port);
		long version = this.policies.current().version();
		assertThat(version).isPositive();
		double failuresBefore = reloads("failure");

		database.goDown();
		try {
			PolicyReloadResult result = this.policies.reload();

			assertThat(result.succeeded()).isFalse();
			assertThat(result.failure()).isNotBlank();
			assertThat(this.policies.current().version()).isEqualTo(version);
			assertThat(reloads("failure")).isGreaterThanOrEqualTo(failuresBefore + 1);
			HttpResponse<String> response = http.get("/api/products");
			assertThat(response.statusCode()).isEqualTo(200);
			// The seeded row of the last good snapshot, not the built-in default.
			assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/products\";q=4;w=2");
		}
		finally {
			database.comeBack();
		}

		// Connections the outage killed are dropped from the pool as they fail; the next
		// refreshes recover by themselves, without a restart.
		int attempts = 0;
		boolean recovered = false;
		while (!recovered && attempts++ < 10) {
			recovered = this.policies.reload().succeeded();
		}
		assertThat(recovered).as("reloaded within 10 attempts after the database returned").isTrue();
		assertThat(this.policies.current().version()).isEqualTo(version + 1);
		assertThat(this.policies.lastFailure()).isNull();
		assertThat(reloads("success")).isPositive();
	}

	@Test
	void reloadWhenDatabaseDownThenKeysLoadedBeforeStillAuthenticateAndFailureIsCounted() throws SQLException {
		String key = "outage-key-0001";
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
					+ KeyedHasher.withSecret(HASH_SECRET).hashHex(key) + "', 'outage-service', 'acme')");
		}
		assertThat(this.apiKeys.reload()).isTrue();
		int active = this.apiKeys.size();
		double failuresBefore = reloads("ratelimit.api-keys.reloads", "failure");
		TestRequest withKey = TestRequest.get("/api/products").from("203.0.113.5").header("X-API-Key", key);

		database.goDown();
		try {
			assertThat(this.apiKeys.reload()).isFalse();

			assertThat(this.apiKeys.lastFailure()).isNotBlank();
			assertThat(reloads("ratelimit.api-keys.reloads", "failure")).isGreaterThanOrEqualTo(failuresBefore + 1);
			assertThat(this.meters.get("ratelimit.api-keys.active").gauge().value()).isEqualTo(active);
			assertThat(this.identities.resolve(withKey).principal()).isEqualTo("outage-service");
			assertThat(new Http(this.port).get("/api/products", "X-API-Key", key).statusCode()).isEqualTo(200);
			assertThat(this.health.health().getDetails()).containsEntry("degraded", true)
				.extractingByKey("apiKeys", InstanceOfAssertFactories.MAP)
				.containsEntry("active", active)
				.containsKey("lastReloadFailure");
		}
		finally {
			database.comeBack();
		}

		int attempts = 0;
		boolean recovered = false;
		while (!recovered && attempts++ < 10) {
			recovered = this.apiKeys.reload();
		}
		assertThat(recovered).as("reloaded within 10 attempts after the database returned").isTrue();
		assertThat(this.apiKeys.lastFailure()).isNull();
		assertThat(this.identities.resolve(withKey).principal()).isEqualTo("outage-service");
	}

}
