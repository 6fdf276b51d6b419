package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.Refusals;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Plans' {@code GLOBAL} and {@code GLOBAL_BATCHED} rows on two replicas: a tenant the
 * tenant-to-plan table puts on a plan draws on one bucket in Redis, whichever replica serves
 * it, with its plan's count and not the count for everyone; a tenant of its own row keeps
 * that row; a plan's {@code OFF} row switches its count off.
 */
class PlansGlobalEndToEndTest {

	private static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	/**
	 * The README's plans, counts scaled down: each endpoint's own limit per plan (Free 10 a
	 * second, Pro 100, Enterprise 2), and a count across the API per day and plan (Free 10,
	 * Pro 20, off for Enterprise), for everyone else (100) and of tenant {@code acme}'s own
	 * (12); {@code initech} and {@code acme} on Free, {@code hooli} on Pro, {@code umbrella}
	 * on Enterprise, every row {@code GLOBAL} or every row {@code GLOBAL_BATCHED}, on two
	 * replicas. {@code GLOBAL}: exact counts. Batched: the README's bounds, with n = 2
	 * replicas and leases L and credit A of a tenth of a bucket (at least one token): at
	 * most {@code 1.5 × n × L} less than the count once no replica is quiet after a short
	 * grant (a second at most), at most {@code 2 × n × A} more (the credit replicas give
	 * keys before Redis answers). On either, a refused request names
	 * the limit that refused with less left than the request costs, and {@code Retry-After}
	 * is at least its wait; the fields show which plan's rows applied.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "GLOBAL", "GLOBAL_BATCHED" })
	void requestsWhenPlansRowsAreSharedThenReplicasShareTheTenantsBucketAtThePlansCount(String scope)
			throws Exception {
		boolean exact = scope.equals("GLOBAL");
		// Buckets in Redis outlive a replica: each run has keys and principals of its own.
		String initech = "initech-" + scope;
		String acme = "acme-" + scope;
		String hooli = "hooli-" + scope;
		String umbrella = "umbrella-" + scope;
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("DELETE FROM rate_limit_policy");
				sql.execute("DELETE FROM rate_limit_tenant_plan");
				sql.execute("""
						INSERT INTO rate_limit_policy (endpoint, plan, rps_limit, scope) VALUES
						    ('default', 'free',       10,  '%1$s'),
						    ('default', 'pro',        100, '%1$s'),
						    ('default', 'enterprise', 2,   '%1$s')
						""".formatted(scope));
				sql.execute("""
						INSERT INTO rate_limit_policy
						    (endpoint, project_id, plan, mode, limit_name, applies_to, limit_count, limit_window, counts,
						     scope)
						VALUES
						    ('default', NULL,   NULL,         'ENFORCE', 'daily', 'API', 100, 'P1D', 'REQUESTS', '%1$s'),
						    ('default', NULL,   'free',       'ENFORCE', 'daily', 'API', 10,  'P1D', 'REQUESTS', '%1$s'),
						    ('default', NULL,   'pro',        'ENFORCE', 'daily', 'API', 20,  'P1D', 'REQUESTS', '%1$s'),
						    ('default', NULL,   'enterprise', 'OFF',     'daily', 'API', 1,   'P1D', 'REQUESTS', '%1$s'),
						    ('default', 'acme', NULL,         'ENFORCE', 'daily', 'API', 12,  'P1D', 'REQUESTS', '%1$s')
						""".formatted(scope));
				sql.execute("INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES ('initech', 'free'), "
						+ "('acme', 'free'), ('hooli', 'pro'), ('umbrella', 'enterprise')");
				KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
				for (String[] key : new String[][] { { initech, "initech" }, { acme, "acme" }, { hooli, "hooli" },
						{ umbrella, "umbrella" } }) {
					sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
							+ hasher.hashHex(key[0]) + "', '" + key[0] + "', '" + key[1] + "')");
				}
			}
			for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { first, second }) {
				assertThat(context.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
				assertThat(context.getBean(ReloadableApiKeys.class).reload()).isTrue();
			}
			Http one = http(first);
			Http two = http(second);

			// Batched: enough attempts for leases refused while their refill is on its way to
			// come back; their count is what the bound is about.
			int attempts = exact ? 14 : 60;
			int initechAdmitted = exact ? admitted(one, two, initech, attempts)
					: admittedWithin(one, two, initech, attempts, 10 - 3);
			// Batched: having reached the bound, the fleet may still hold a few of the tokens.
			HttpResponse<String> refused = null;
			for (int i = 0; i < 30 && refused == null; i++) {
				HttpResponse<String> response = two.get("/api/repos/3", "X-API-Key", initech);
				assertThat(response.statusCode()).isIn(200, 429);
				if (response.statusCode() == 429) {
					refused = response;
				}
				else {
					initechAdmitted++;
				}
			}
			assertThat(refused).as("initech refused once its count is spent").isNotNull();
			assertThat(refused.headers().firstValue("RateLimit-Policy"))
				.hasValue("\"default\";q=20;w=2, \"daily\";q=10;w=86400");
			Refusals.assertRefusedBy("daily", refused);
			// A tenth of 12 is 1.2 tokens: 3.6 less at most, 4.8 more.
			int acmeAdmitted = exact ? admitted(one, two, acme, attempts)
					: admittedWithin(one, two, acme, attempts, 12 - 3);
			int hooliAdmitted = exact ? admitted(one, two, hooli, 24) : admittedWithin(one, two, hooli, 60, 20 - 6);
			assertThat(one.get("/api/status", "X-API-Key", hooli).headers().firstValue("RateLimit-Policy"))
				.hasValue("\"default\";q=200;w=2, \"daily\";q=20;w=86400");
			if (exact) {
				assertThat(initechAdmitted).isEqualTo(10);
				assertThat(acmeAdmitted).isEqualTo(12);
				assertThat(hooliAdmitted).isEqualTo(20);
			}
			else {
				assertThat(initechAdmitted).as("initech admitted").isLessThanOrEqualTo(10 + 4);
				assertThat(acmeAdmitted).as("acme admitted").isLessThanOrEqualTo(12 + 4);
				assertThat(hooliAdmitted).as("hooli admitted").isLessThanOrEqualTo(20 + 8);
			}

			// Enterprise: the daily count is off for the plan, and its own 2 a second (a burst
			// of 4) refuses a flood.
			HttpResponse<String> umbrellaRefused = null;
			for (int i = 0; i < 30 && umbrellaRefused == null; i++) {
				HttpResponse<String> response = ((i % 2 == 0) ? one : two).get("/api/repos/" + i, "X-API-Key",
						umbrella);
				assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=4;w=2");
				umbrellaRefused = (response.statusCode() == 429) ? response : null;
			}
			assertThat(umbrellaRefused).as("a flood of Enterprise requests refused").isNotNull();
			Refusals.assertRefusedBy("default", umbrellaRefused);
			assertThat(redis.keys(redis.prefix())).isNotEmpty();
		}
	}

	/**
	 * Batched: sends requests alternately to the two replicas, then, while fewer were
	 * admitted than the bound allows, one more every 200 ms for at most 5 s. A replica that a
	 * short grant sent quiet refuses for up to a second before it asks Redis again, and the
	 * tokens the other replica gave back meanwhile wait that long; after it, nothing may be
	 * missing beyond the bound.
	 */
	private static int admittedWithin(Http one, Http two, String apiKey, int attempts, int atLeast) {
		AtomicInteger admitted = new AtomicInteger(admitted(one, two, apiKey, attempts));
		AtomicInteger sent = new AtomicInteger(attempts);
		await(apiKey + " admitted at least " + atLeast).atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				if (admitted.get() < atLeast) {
					int i = sent.getAndIncrement();
					HttpResponse<String> response = ((i % 2 == 0) ? one : two).get("/api/repos/" + i, "X-API-Key",
							apiKey);
					admitted.addAndGet((response.statusCode() == 200) ? 1 : 0);
				}
				return admitted.get() >= atLeast;
			});
		return admitted.get();
	}

	/** Sends requests alternately to the two replicas, and counts those admitted. */
	private static int admitted(Http one, Http two, String apiKey, int attempts) {
		int admitted = 0;
		for (int i = 0; i < attempts; i++) {
			HttpResponse<String> response = ((i % 2 == 0) ? one : two).get("/api/repos/" + i, "X-API-Key", apiKey);
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
		}
		return admitted;
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(LayeredApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.api-key.hash-secret=" + HASH_SECRET, "--ratelimit.policy.default-rps=100",
				"--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false");
	}

	private static Http http(ConfigurableApplicationContext context) {
		return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
	}

}
