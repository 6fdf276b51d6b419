package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.TestRequest;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three replicas share one PostgreSQL key table and hold its active keys in memory. Their
 * periodic refresh is an hour apart, so only a notification explains a change taking
 * effect: a key issued, deactivated or deleted by plain SQL is honoured by every replica
 * within a second.
 */
class ApiKeyChangeNotificationEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	private static final KeyedHasher HASHER = KeyedHasher.withSecret(HASH_SECRET);

	private static final int REPLICAS = 3;

	private static final int SAMPLES = 10;

	private static final Duration PROPAGATION_BOUND = Duration.ofSeconds(1);

	private static final List<ConfigurableApplicationContext> replicas = new ArrayList<>();

	@BeforeAll
	static void startReplicas() {
		Map<String, Object> properties = new LinkedHashMap<>();
		database.register((name, value) -> properties.put(name, value.get()));
		properties.put("server.port", 0);
		properties.put("ratelimit.policy.refresh-interval", "1h");
		properties.put("ratelimit.api-key.hash-secret", HASH_SECRET);
		properties.put("spring.main.banner-mode", "off");
		for (int i = 0; i < REPLICAS; i++) {
			replicas.add(new SpringApplicationBuilder(TestShopApplication.class).properties(properties).run());
		}
	}

	@AfterAll
	static void stopReplicas() {
		replicas.forEach(ConfigurableApplicationContext::close);
		replicas.clear();
	}

	@BeforeEach
	void everyReplicaListening() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (!replicas.stream().allMatch((replica) -> replica.getBean(PolicyChangeListener.class).isListening())
				&& System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(replicas).allMatch((replica) -> replica.getBean(PolicyChangeListener.class).isListening());
	}

	@Test
	void keyWhenIssuedDeactivatedOrDeletedThenHonouredOnEveryReplicaWithinOneSecond() throws Exception {
		List<Duration> issued = new ArrayList<>();
		List<Duration> deactivated = new ArrayList<>();
		List<Duration> deleted = new ArrayList<>();
		for (int i = 0; i < SAMPLES; i++) {
			String key = "rk_live_issued_" + i;
			String hash = HASHER.hashHex(key);
			issued.add(changeAndAwait("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) "
					+ "VALUES (?, 'service-" + i + "', 'acme')", hash, key, Identity.Source.API_KEY));
			deactivated.add(changeAndAwait("UPDATE rate_limit_api_key SET active = false WHERE key_hash = ?", hash,
					key, Identity.Source.NETWORK));
			changeAndAwait("UPDATE rate_limit_api_key SET active = true WHERE key_hash = ?", hash, key,
					Identity.Source.API_KEY);
			deleted.add(changeAndAwait("DELETE FROM rate_limit_api_key WHERE key_hash = ?", hash, key,
					Identity.Source.NETWORK));
		}

		report("issued", issued);
		report("deactivated", deactivated);
		report("deleted", deleted);
	}

	@Test
	void keyWhenIssuedThenOwnerAndTenantResolvedOnEveryReplica() throws Exception {
		String key = "rk_live_owner_check";
		changeAndAwait("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES (?, 'billing', 'globex')",
				HASHER.hashHex(key), key, Identity.Source.API_KEY);

		for (ConfigurableApplicationContext replica : replicas) {
			Identity identity = resolve(replica, key);
			assertThat(identity.principal()).isEqualTo("billing");
			assertThat(identity.tenant()).isEqualTo("globex");
		}
	}

	@Test
	void policyChangeWhenCommittedThenKeysNotReloaded() throws Exception {
		String key = "rk_live_channel_check";
		String hash = HASHER.hashHex(key);
		changeAndAwait("INSERT INTO rate_limit_api_key (key_hash, principal) VALUES (?, 'channel-check')", hash, key,
				Identity.Source.API_KEY);
		List<Long> keyLoads = settledKeyLoads();
		List<Long> policyVersions = replicas.stream()
			.map((replica) -> replica.getBean(ReloadablePolicies.class).current().version())
			.toList();

		try (Connection connection = database.connect()) {
			connection.createStatement()
				.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/products', 7)");
		}
		long deadline = System.nanoTime() + PROPAGATION_BOUND.toNanos();
		for (int i = 0; i < REPLICAS; i++) {
			while (replicas.get(i).getBean(ReloadablePolicies.class).current().version() == policyVersions.get(i)
					&& System.nanoTime() - deadline < 0) {
				Thread.sleep(1);
			}
			assertThat(replicas.get(i).getBean(ReloadablePolicies.class).current().version())
				.isGreaterThan(policyVersions.get(i));
		}
		// A key change after the policy change costs each replica exactly one key load:
		// the policy change cost none.
		changeAndAwait("DELETE FROM rate_limit_api_key WHERE key_hash = ?", hash, key, Identity.Source.NETWORK);

		List<Long> after = settledKeyLoads();
		for (int i = 0; i < REPLICAS; i++) {
			assertThat(after.get(i)).as("key loads of replica %d", i).isEqualTo(keyLoads.get(i) + 1);
		}
	}

	/**
	 * Returns each replica's key load count once none has changed for half a second: a
	 * notification arrives within milliseconds, so no load is still on its way.
	 */
	private static List<Long> settledKeyLoads() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		List<Long> loads = keyLoads();
		while (System.nanoTime() - deadline < 0) {
			Thread.sleep(500);
			List<Long> now = keyLoads();
			if (now.equals(loads)) {
				return now;
			}
			loads = now;
		}
		throw new AssertionError("key loads still changing after 20 s: " + loads);
	}

	private static List<Long> keyLoads() {
		return replicas.stream().map((replica) -> replica.getBean(ReloadableApiKeys.class).loads()).toList();
	}

	/**
	 * Runs one auto-committed statement on the key table and waits until every replica
	 * resolves the key as {@code expected}.
	 * @return the time from sending the statement until the last replica agreed
	 */
	private static Duration changeAndAwait(String sql, String hash, String key, Identity.Source expected)
			throws SQLException, InterruptedException {
		long start;
		try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, hash);
			start = System.nanoTime();
			assertThat(statement.executeUpdate()).isEqualTo(1);
		}
		long deadline = start + PROPAGATION_BOUND.toNanos();
		while (!resolvedEverywhereAs(key, expected) && System.nanoTime() - deadline < 0) {
			Thread.sleep(1);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		assertThat(resolvedEverywhereAs(key, expected))
			.as("key resolved as %s on all %d replicas within %s after: %s", expected, REPLICAS, PROPAGATION_BOUND, sql)
			.isTrue();
		return elapsed;
	}

	private static boolean resolvedEverywhereAs(String key, Identity.Source expected) {
		return replicas.stream().allMatch((replica) -> resolve(replica, key).source() == expected);
	}

	private static Identity resolve(ConfigurableApplicationContext replica, String key) {
		return replica.getBean(IdentityResolver.class)
			.resolve(TestRequest.get("/api/products").from("203.0.113.9").header("X-API-Key", key));
	}

	private static void report(String change, List<Duration> latencies) {
		List<Duration> sorted = latencies.stream().sorted().toList();
		Duration median = sorted.get(sorted.size() / 2 - 1).plus(sorted.get(sorted.size() / 2)).dividedBy(2);
		System.out.printf("API key %s, honoured on all %d replicas over %d changes: median %.1f ms, max %.1f ms%n",
				change, REPLICAS, sorted.size(), median.toNanos() / 1e6, sorted.get(sorted.size() - 1).toNanos() / 1e6);
	}

}
