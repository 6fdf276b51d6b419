package io.ratelimit.sample.adversarial;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

import com.zaxxer.hikari.HikariDataSource;
import io.ratelimit.autoconfigure.notify.PolicyChangeListener;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.sample.SampleApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A8, database amplification: a flood of invented credentials must not become database
 * load, and a database outage must not hold requests. The sample runs on PostgreSQL with a
 * pool of two connections (Flyway needs both at startup); the periodic refresh is an hour
 * apart, so nothing reloads on its own.
 * <p>
 * Each flood is 1,000 requests to {@code GET /api/products/1} from one address, with a
 * random {@code X-API-Key}, a random bearer token, or no credential (the baseline). The
 * test counts the scans of {@code rate_limit_api_key} and the transactions of the database
 * around each flood ({@code pg_stat_user_tables}, {@code pg_stat_database}), read on a
 * connection of its own inside one open transaction, so its reads add none, after the pool
 * closed its connections so that their backends flushed their statistics. The transactions
 * include the pool opening its connections again (a handful), the baseline shows how many.
 * Asserted: no key scan for any flood; with the database refusing connections, random
 * keys, random tokens and the real key {@code demo-acme-key-0001} answer with a P99 under
 * 100 ms and no 5xx.
 */
class DatabaseAmplificationTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final int REQUESTS = 1000;

	private static final Duration FLUSH_WAIT = Duration.ofSeconds(20);

	/** The application name of the pool's connections, which tells their backends apart. */
	private static final String POOL_NAME = "a8-pool";

	private static ConfigurableApplicationContext app;

	private static AttackClient http;

	@BeforeAll
	static void start() {
		// Arguments, not default properties: the sample's application.properties sets a 5 s refresh.
		List<String> properties = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
				"--logging.level.root=WARN", "--ratelimit.policy.refresh-interval=1h",
				"--spring.datasource.hikari.maximum-pool-size=2",
				"--spring.datasource.hikari.data-source-properties.ApplicationName=" + POOL_NAME));
		database.register((name, value) -> properties.add("--" + name + "=" + value.get()));
		app = new SpringApplicationBuilder(SampleApplication.class).run(properties.toArray(String[]::new));
		http = new AttackClient(((WebServerApplicationContext) app).getWebServer().getPort());
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@Test
	void floodWhenCredentialsInventedThenNoKeyQueryReachesTheDatabase() throws Exception {
		SplittableRandom random = new SplittableRandom(8);
		Map<String, IntFunction<String[]>> floods = new LinkedHashMap<>();
		floods.put("no credential", (i) -> new String[0]);
		floods.put("random API key", (i) -> new String[] { "X-API-Key", randomKey(random) });
		floods.put("random bearer token", (i) -> new String[] { "Authorization", "Bearer " + randomToken(random) });

		awaitListenerReloaded();
		try (Connection stats = database.connect()) {
			stats.setAutoCommit(false);
			Counts before = flushedCounts(stats);
			for (Map.Entry<String, IntFunction<String[]>> flood : floods.entrySet()) {
				Map<Integer, Integer> statuses = new LinkedHashMap<>();
				for (int i = 0; i < REQUESTS; i++) {
					statuses.merge(http.get("/api/products/1", flood.getValue().apply(i)).statusCode(), 1,
							Integer::sum);
				}
				Counts after = flushedCounts(stats);

				long keyScans = after.keyScans - before.keyScans;
				long transactions = after.transactions - before.transactions;
				Figures.record("A8 database amplification", "%d requests, %s: %d key-table scans, %d database "
						+ "transactions; statuses %s", REQUESTS, flood.getKey(), keyScans, transactions, statuses);
				assertThat(keyScans).as("scans of rate_limit_api_key for %s", flood.getKey()).isZero();
				assertThat(statuses).doesNotContainKeys(500, 502, 503, 504);
				before = after;
			}
		}
	}

	@Test
	void floodWhenDatabaseDownThenAnsweredAtOnceWithoutServerErrors() {
		SplittableRandom random = new SplittableRandom(9);
		Map<String, IntFunction<String[]>> floods = new LinkedHashMap<>();
		floods.put("random API key", (i) -> new String[] { "X-API-Key", randomKey(random) });
		floods.put("random bearer token", (i) -> new String[] { "Authorization", "Bearer " + randomToken(random) });
		floods.put("the real key demo-acme-key-0001", (i) -> new String[] { "X-API-Key", "demo-acme-key-0001" });
		// Warm the connections and code paths up before timing.
		for (int i = 0; i < 200; i++) {
			http.get("/api/products/1", "X-API-Key", randomKey(random));
		}

		database.goDown();
		try {
			for (Map.Entry<String, IntFunction<String[]>> flood : floods.entrySet()) {
				long[] nanos = new long[REQUESTS];
				Map<Integer, Integer> statuses = new LinkedHashMap<>();
				for (int i = 0; i < REQUESTS; i++) {
					long start = System.nanoTime();
					HttpResponse<String> response = http.get("/api/products/1", flood.getValue().apply(i));
					nanos[i] = System.nanoTime() - start;
					statuses.merge(response.statusCode(), 1, Integer::sum);
				}
				double p50 = Figures.percentileMicros(nanos, 50);
				double p99 = Figures.percentileMicros(nanos, 99);
				double max = Figures.percentileMicros(nanos, 100);
				Figures.record("A8 database down", "%d requests, %s: P50 %.0f us, P99 %.0f us, max %.0f us; statuses %s",
						REQUESTS, flood.getKey(), p50, p99, max, statuses);
				assertThat(p99).as("P99 in microseconds, %s", flood.getKey()).isLessThan(100_000);
				assertThat(statuses.keySet()).as("statuses, %s", flood.getKey()).allMatch((status) -> status < 500);
			}
		}
		finally {
			database.comeBack();
		}
	}

	/**
	 * The change listener reloads both tables just after it (re)connects, after startup or
	 * an outage, and retries a failed reload every second; that is background, not the
	 * flood's doing, so it is waited out first: listening, and no key load for 1.5 s.
	 */
	private static void awaitListenerReloaded() throws InterruptedException {
		PolicyChangeListener listener = app.getBean(PolicyChangeListener.class);
		ReloadableApiKeys keys = app.getBean(ReloadableApiKeys.class);
		long deadline = System.nanoTime() + FLUSH_WAIT.toNanos();
		long loads = -1;
		while (!(listener.isListening() && keys.lastFailure() == null && keys.loads() == loads)
				&& System.nanoTime() - deadline < 0) {
			loads = keys.loads();
			Thread.sleep(1500);
		}
		assertThat(listener.isListening()).as("the change listener listening").isTrue();
		assertThat(keys.lastFailure()).as("the last key reload's failure").isNull();
	}

	/**
	 * Reads the counts once the pool's backends have told everything they did. An idle
	 * backend may hold its statistics back for up to ten seconds, but one that exits
	 * flushes them: so the pool closes its connections, and the counts are read once their
	 * backends are gone (and a moment later, as the flush follows the exit by a hair).
	 */
	private static Counts flushedCounts(Connection stats) throws SQLException, InterruptedException {
		List<Integer> pool = poolBackends(stats);
		app.getBean(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
		long deadline = System.nanoTime() + FLUSH_WAIT.toNanos();
		while (poolBackends(stats).stream().anyMatch(pool::contains) && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(poolBackends(stats)).as("backends of the evicted connections").doesNotContainAnyElementsOf(pool);
		Thread.sleep(200);
		return counts(stats);
	}

	private static List<Integer> poolBackends(Connection stats) throws SQLException {
		List<Integer> pids = new ArrayList<>();
		try (Statement statement = stats.createStatement()) {
			statement.execute("SELECT pg_stat_clear_snapshot()");
			try (ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE application_name = '"
					+ POOL_NAME + "'")) {
				while (rows.next()) {
					pids.add(rows.getInt(1));
				}
			}
		}
		return pids;
	}

	private static Counts counts(Connection stats) throws SQLException {
		try (Statement statement = stats.createStatement()) {
			statement.execute("SELECT pg_stat_clear_snapshot()");
			try (ResultSet row = statement.executeQuery("SELECT (SELECT xact_commit + xact_rollback FROM "
					+ "pg_stat_database WHERE datname = current_database()), (SELECT coalesce(seq_scan, 0) + "
					+ "coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'rate_limit_api_key')")) {
				row.next();
				return new Counts(row.getLong(1), row.getLong(2));
			}
		}
	}

	private static String randomKey(SplittableRandom random) {
		return "rk_live_" + Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
	}

	private static String randomToken(SplittableRandom random) {
		byte[] bytes = new byte[48];
		random.nextBytes(bytes);
		String part = HexFormat.of().formatHex(bytes);
		return "eyJhbGciOiJIUzI1NiJ9." + part + "." + part.substring(0, 43);
	}

	private record Counts(long transactions, long keyScans) {
	}

}
