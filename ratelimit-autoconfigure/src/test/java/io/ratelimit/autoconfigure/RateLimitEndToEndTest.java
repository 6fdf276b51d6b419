package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in a real application over real HTTP, with policies in PostgreSQL. Each test
 * speaks for a client address of its own (through a trusted proxy on loopback), so tests
 * never share buckets.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.weights=GET /api/reports/*=5", "spring.jpa.hibernate.ddl-auto=validate",
				"spring.jpa.open-in-view=false" })
@DirtiesContext
class RateLimitEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger clients = new AtomicInteger();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	@Autowired
	private BucketStore buckets;

	private Http http;

	private String client;

	@BeforeEach
	void newClient() {
		this.http = new Http(this.port);
		this.client = "198.51.100." + clients.incrementAndGet();
	}

	private HttpResponse<String> get(String path) {
		return this.http.get(path, "X-Forwarded-For", this.client);
	}

	private void sql(String statement) throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute(statement);
		}
	}

	@Test
	void startupWhenApplicationHasOwnEntitiesAndMigrationsThenBothKeepWorking() {
		HttpResponse<String> widgets = get("/api/widgets");

		assertThat(widgets.statusCode()).isEqualTo(200);
		assertThat(widgets.body()).isEqualTo("[\"sprocket\"]");
		// The application's migration seeded policy rows into the limiter's table.
		assertThat(this.policies.current().policies()).extracting((policy) -> policy.endpoint().toString())
			.contains("GET /api/products", "GET /api/users/*", "default");
	}

	@Test
	void getWhenWithinLimitThenPassesWithRateLimitFields() {
		HttpResponse<String> response = get("/api/products");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).isEqualTo("products");
		assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/products\";q=4;w=2");
		assertThat(response.headers().firstValue("RateLimit")).hasValue("\"GET /api/products\";r=3;t=1");
	}

	@Test
	void getWhenOverLimitThenProblemResponseOfSpecSectionTwo() {
		for (int i = 0; i < 4; i++) {
			assertThat(get("/api/products").statusCode()).isEqualTo(200);
		}

		HttpResponse<String> response = get("/api/products");

		assertThat(response.statusCode()).isEqualTo(429);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/products\";q=4;w=2");
		assertThat(response.headers().firstValue("RateLimit")).hasValue("\"GET /api/products\";r=0;t=1");
		assertThat(response.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
				+ "\"detail\":\"Rate limit exceeded for GET /api/products; retry after 1 second.\","
				+ "\"endpoint\":\"GET /api/products\",\"policy\":\"GET /api/products\"}");
	}

	@Test
	void headWhenOverLimitThen429WithoutBody() {
		for (int i = 0; i < 4; i++) {
			this.http.send("HEAD", "/api/products", "X-Forwarded-For", this.client);
		}

		HttpResponse<String> response = this.http.send("HEAD", "/api/products", "X-Forwarded-For", this.client);

		assertThat(response.statusCode()).isEqualTo(429);
		assertThat(response.body()).isEmpty();
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
	}

	@Test
	void getWhenWeightedEndpointThenRemainingDropsByWeight() {
		HttpResponse<String> first = get("/api/reports/1");
		HttpResponse<String> second = get("/api/reports/2");

		assertThat(first.headers().firstValue("RateLimit")).hasValue("\"default\";r=5;t=1");
		assertThat(second.headers().firstValue("RateLimit")).hasValue("\"default\";r=0;t=1");
		assertThat(get("/api/reports/3").statusCode()).isEqualTo(429);
	}

	@Test
	void reloadWhenRowInsertedThenVeryNextRequestHasNewLimit() throws SQLException {
		assertThat(get("/api/orders/7/items").headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=10;w=2");
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/orders/*/items', 1)");

		PolicyReloadResult result = this.policies.reload();

		assertThat(result.succeeded()).isTrue();
		assertThat(get("/api/orders/8/items").headers().firstValue("RateLimit-Policy"))
			.hasValue("\"GET /api/orders/*/items\";q=2;w=2");
		sql("DELETE FROM rate_limit_policy WHERE endpoint = 'GET /api/orders/*/items'");
		this.policies.reload();
	}

	@Test
	void reloadWhenRowBrokenThenReportedAndOthersStillApply() throws SQLException {
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit, mode) VALUES ('GET /api/users/{id}', 3, 'ENFORCE')");
		sql("INSERT INTO rate_limit_policy (endpoint, rps_limit, mode) VALUES ('GET /api/users/*', -1, 'ENFORCE')");
		try {
			PolicyReloadResult result = this.policies.reload();

			assertThat(result.succeeded()).isTrue();
			assertThat(result.snapshot().rejected()).extracting((rejected) -> rejected.reason())
				.anySatisfy((reason) -> assertThat(reason).contains("must not contain '{'"))
				.anySatisfy((reason) -> assertThat(reason).contains("must be positive"));
			assertThat(get("/api/products").headers().firstValue("RateLimit-Policy"))
				.hasValue("\"GET /api/products\";q=4;w=2");
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE endpoint LIKE 'GET /api/users/%' AND project_id IS NULL");
			this.policies.reload();
		}
	}

	@Test
	void reloadWhenPolicyTableEmptiedThenBuiltInDefaultsNotNoLimit() throws SQLException {
		sql("CREATE TABLE saved_policies AS SELECT * FROM rate_limit_policy");
		try {
			sql("DELETE FROM rate_limit_policy");
			assertThat(this.policies.reload().succeeded()).isTrue();

			HttpResponse<String> response = get("/api/products");

			assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=20;w=2");
			int admitted = 1;
			while (admitted < 100 && get("/api/products").statusCode() == 200) {
				admitted++;
			}
			assertThat(admitted).isBetween(20, 25);
		}
		finally {
			sql("INSERT INTO rate_limit_policy SELECT * FROM saved_policies");
			sql("DROP TABLE saved_policies");
			this.policies.reload();
		}
	}

	@Test
	void getWhenThousandRandomPathsThenOnlyOneUnknownBucketForTheClient() {
		long before = this.buckets.stats().entries();
		int rejected = 0;
		for (int i = 0; i < 1000; i++) {
			HttpResponse<String> response = get("/no/such/path/" + i);
			rejected += (response.statusCode() == 429) ? 1 : 0;
		}

		assertThat(this.buckets.stats().entries() - before).isEqualTo(1);
		assertThat(rejected).isGreaterThan(900);
	}

}
