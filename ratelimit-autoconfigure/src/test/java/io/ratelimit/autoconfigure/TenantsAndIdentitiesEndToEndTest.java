package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.Hs256TokenConfiguration;
import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.identity.ApiKeySource;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants and identities end to end, with API keys and policies in PostgreSQL.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.api-key.hash-secret=" + TenantsAndIdentitiesEndToEndTest.HASH_SECRET })
@Import(Hs256TokenConfiguration.class)
@DirtiesContext
class TenantsAndIdentitiesEndToEndTest {

	static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	private static final String ACME_KEY = "acme-key-0001";

	private static final String ACME_KEY_2 = "acme-key-0002";

	private static final String GLOBEX_KEY = "globex-key-0001";

	private static final String REVOKED_KEY = "acme-revoked-0001";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger clients = new AtomicInteger(100);

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
	private ApiKeySource apiKeySource;

	private Http http;

	private String client;

	private static boolean keysInserted;

	/**
	 * Inserts the keys once the application has created its tables (the context starts
	 * after {@code @BeforeAll}, so this cannot run there).
	 */
	private static synchronized void insertKeysOnce() throws SQLException {
		if (keysInserted) {
			return;
		}
		keysInserted = true;
		KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			insertKey(sql, hasher, ACME_KEY, "acme-frontend", "acme", true);
			insertKey(sql, hasher, ACME_KEY_2, "acme-batch", "acme", true);
			insertKey(sql, hasher, GLOBEX_KEY, "globex-integration", "globex", true);
			insertKey(sql, hasher, REVOKED_KEY, "acme-old", "acme", false);
			// One request per bucket, refilled in 100 s: a second request shows the same bucket.
			sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/orders/*/items', 0.01)");
		}
	}

	private static void insertKey(Statement sql, KeyedHasher hasher, String key, String principal, String tenant,
			boolean active) throws SQLException {
		sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id, active) VALUES ('"
				+ hasher.hashHex(key) + "', '" + principal + "', '" + tenant + "', " + active + ")");
	}

	@BeforeEach
	void newClient() throws SQLException {
		insertKeysOnce();
		this.http = new Http(this.port);
		this.client = "203.0.113." + clients.incrementAndGet();
		this.policies.reload();
		this.apiKeys.reload();
	}

	private HttpResponse<String> get(String path, String... headers) {
		String[] all = new String[headers.length + 2];
		all[0] = "X-Forwarded-For";
		all[1] = this.client;
		System.arraycopy(headers, 0, all, 2, headers.length);
		return this.http.get(path, all);
	}

	private static String policyOf(HttpResponse<String> response) {
		return response.headers().firstValue("RateLimit-Policy").orElse("none");
	}

	@Test
	void getWhenTenantHasOverrideThenItAppliesAndOtherTenantsGetTheGlobalRow() {
		// Seeded: (GET /api/users/*, acme) = 50 rps, (default, global) = 5 rps.
		assertThat(policyOf(get("/api/users/1", "X-API-Key", ACME_KEY))).isEqualTo("\"GET /api/users/*\";q=100;w=2");
		assertThat(policyOf(get("/api/users/1", "X-API-Key", GLOBEX_KEY))).isEqualTo("\"default\";q=10;w=2");
		assertThat(policyOf(get("/api/products", "X-API-Key", GLOBEX_KEY))).isEqualTo("\"GET /api/products\";q=4;w=2");
		// A template without rows of its own gets default, for every tenant.
		assertThat(policyOf(get("/api/reports/1", "X-API-Key", ACME_KEY))).isEqualTo("\"default\";q=10;w=2");
	}

	@Test
	void getWhenDifferentKeysThenEachHasItsOwnBucketAcrossAddresses() {
		assertThat(get("/api/orders/1/items", "X-API-Key", ACME_KEY).statusCode()).isEqualTo(200);
		assertThat(get("/api/orders/1/items", "X-API-Key", ACME_KEY_2).statusCode()).isEqualTo(200);
		assertThat(get("/api/orders/1/items", "X-API-Key", GLOBEX_KEY).statusCode()).isEqualTo(200);
		// The same key from another address is the same principal, so the same (empty) bucket.
		this.client = "203.0.113." + clients.incrementAndGet();
		assertThat(get("/api/orders/1/items", "X-API-Key", ACME_KEY).statusCode()).isEqualTo(429);
		// While the address itself still has its own.
		assertThat(get("/api/orders/1/items").statusCode()).isEqualTo(200);
	}

	@Test
	void getWhenKeyRandomOrRevokedThenLimitedTogetherWithTheCallersAddress() {
		assertThat(get("/api/orders/1/items").statusCode()).isEqualTo(200);
		assertThat(get("/api/orders/1/items", "X-API-Key", REVOKED_KEY).statusCode()).isEqualTo(429);
		assertThat(get("/api/orders/1/items", "X-API-Key", "random-" + System.nanoTime()).statusCode()).isEqualTo(429);
	}

	@Test
	void getWhenBearerTokenVerifiedThenItsSubjectHasItsOwnBucketAcrossAddresses() {
		String alice = "Bearer " + Hs256TokenConfiguration.sign(Hs256TokenConfiguration.SECRET, "alice", "acme");
		String bob = "Bearer " + Hs256TokenConfiguration.sign(Hs256TokenConfiguration.SECRET, "bob", "acme");

		assertThat(get("/api/orders/1/items", "Authorization", alice).statusCode()).isEqualTo(200);
		assertThat(get("/api/orders/1/items", "Authorization", bob).statusCode()).isEqualTo(200);
		this.client = "203.0.113." + clients.incrementAndGet();
		assertThat(get("/api/orders/1/items", "Authorization", alice).statusCode()).isEqualTo(429);
		// The token's tenant picks the tenant's policy.
		assertThat(policyOf(get("/api/users/1", "Authorization", alice))).isEqualTo("\"GET /api/users/*\";q=100;w=2");
	}

	@Test
	void getWhenBearerTokenBadlySignedThenLimitedTogetherWithTheCallersAddress() {
		String forged = "Bearer " + Hs256TokenConfiguration.sign("a-secret-the-application-never-had!!", "alice",
				"acme");

		assertThat(get("/api/orders/1/items").statusCode()).isEqualTo(200);
		assertThat(get("/api/orders/1/items", "Authorization", forged).statusCode()).isEqualTo(429);
		// And a forged tenant claim earns no tenant policy.
		assertThat(policyOf(get("/api/users/1", "Authorization", forged))).isEqualTo("\"default\";q=10;w=2");
	}

	@Test
	void getWhenRetriedAfterRetryAfterSecondsThenAdmitted() throws InterruptedException {
		HttpResponse<String> rejected = null;
		for (int i = 0; i < 6 && rejected == null; i++) {
			HttpResponse<String> response = get("/api/products");
			rejected = (response.statusCode() == 429) ? response : null;
		}
		assertThat(rejected).isNotNull();
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isPositive();

		Thread.sleep(retryAfter * 1000);

		assertThat(get("/api/products").statusCode()).isEqualTo(200);
	}

	@Test
	void reloadWhenMoreActiveKeysThanTheMaximumThenTheTableFailsToLoad() {
		// Three active keys and one inactive: the query reads active rows only, at most one more than the maximum.
		ReloadableApiKeys atMostTwo = new ReloadableApiKeys(this.apiKeySource, 2, TimeSource.system());
		ReloadableApiKeys atMostThree = new ReloadableApiKeys(this.apiKeySource, 3, TimeSource.system());

		assertThat(atMostTwo.reload()).isFalse();
		assertThat(atMostTwo.lastFailure()).contains("more than 2 active API keys");
		assertThat(atMostThree.reload()).isTrue();
		assertThat(atMostThree.size()).isEqualTo(3);
	}

}
