package io.ratelimit.autoconfigure.notify;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three replicas of an application share one PostgreSQL database. Their periodic refresh
 * is an hour apart, so only a notification explains a change taking effect: a row
 * committed by anyone is in force on every replica within a second, and stays so across
 * a database outage.
 */
class PolicyChangeNotificationEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final int REPLICAS = 3;

	private static final int SAMPLES = 20;

	private static final Duration PROPAGATION_BOUND = Duration.ofSeconds(1);

	private static final EndpointTemplate ITEMS = EndpointTemplate.parse("GET /api/orders/*/items");

	private static final List<ConfigurableApplicationContext> replicas = new ArrayList<>();

	@BeforeAll
	static void startReplicas() {
		Map<String, Object> properties = new LinkedHashMap<>();
		database.register((name, value) -> properties.put(name, value.get()));
		properties.put("server.port", 0);
		properties.put("ratelimit.policy.refresh-interval", "1h");
		properties.put("spring.datasource.hikari.connection-timeout", 1000);
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
		awaitListening(true);
	}

	@Test
	void insertWhenCommittedThenInEffectOnEveryReplicaWithinOneSecond() throws Exception {
		List<Duration> latencies = new ArrayList<>();
		for (int i = 1; i <= SAMPLES; i++) {
			latencies.add(insertAndAwait("tenant-" + i, BigDecimal.valueOf(i), PROPAGATION_BOUND));
		}

		List<Duration> sorted = latencies.stream().sorted().toList();
		Duration median = sorted.get(SAMPLES / 2 - 1).plus(sorted.get(SAMPLES / 2)).dividedBy(2);
		Duration max = sorted.get(SAMPLES - 1);
		System.out.printf("Policy propagation to all %d replicas over %d inserts: median %.1f ms, max %.1f ms %s%n",
				REPLICAS, SAMPLES, millis(median), millis(max),
				latencies.stream().map((latency) -> String.format("%.1f", millis(latency))).toList());
		assertThat(max).isLessThan(PROPAGATION_BOUND);
	}

	@Test
	void insertWhenCommittedThenEveryReplicaAnswersWithIt() throws Exception {
		insertAndAwait(null, BigDecimal.valueOf(50), PROPAGATION_BOUND);

		for (ConfigurableApplicationContext replica : replicas) {
			int port = ((WebServerApplicationContext) replica).getWebServer().getPort();
			assertThat(new Http(port).get("/api/orders/1/items").headers().firstValue("RateLimit-Policy"))
				.hasValue("\"GET /api/orders/*/items\";q=100;w=2");
		}
	}

	@Test
	void outageWhenDatabaseReturnsThenListenersReconnectAndPickUpChanges() throws Exception {
		database.goDown();
		try {
			awaitListening(false);
		}
		finally {
			database.comeBack();
		}

		// Made as soon as the database is back, possibly before a listener is: the reload
		// after reconnecting, or the notification, brings it. Bounded by the backoff.
		insertAndAwait("after-outage", BigDecimal.valueOf(3), Duration.ofSeconds(20));
		awaitListening(true);
		// Listening again, not just reloaded once: the next change arrives as fast as before.
		insertAndAwait("after-reconnect", BigDecimal.valueOf(4), PROPAGATION_BOUND);
	}

	/**
	 * Inserts a row for {@code GET /api/orders/*\/items} and waits until every replica
	 * resolves it.
	 * @return the time from sending the auto-committed insert until the last replica had it
	 */
	private static Duration insertAndAwait(@Nullable String tenant, BigDecimal rps, Duration bound)
			throws SQLException, InterruptedException {
		long start;
		try (Connection connection = database.connect();
				PreparedStatement insert = connection.prepareStatement(
						"INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES (?, ?, ?)")) {
			insert.setString(1, ITEMS.toString());
			insert.setString(2, tenant);
			insert.setBigDecimal(3, rps);
			start = System.nanoTime();
			insert.executeUpdate();
		}
		long deadline = start + bound.toNanos();
		while (!inEffectEverywhere(tenant, rps) && System.nanoTime() - deadline < 0) {
			Thread.sleep(1);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		assertThat(inEffectEverywhere(tenant, rps))
			.as("row for tenant %s in effect on all %d replicas within %s", tenant, REPLICAS, bound)
			.isTrue();
		return elapsed;
	}

	private static boolean inEffectEverywhere(@Nullable String tenant, BigDecimal rps) {
		for (ConfigurableApplicationContext replica : replicas) {
			Policy policy = replica.getBean(ReloadablePolicies.class).current().resolve(ITEMS, tenant);
			if (!policy.endpoint().equals(ITEMS) || !Objects.equals(policy.tenant(), tenant)
					|| policy.rps().compareTo(rps) != 0) {
				return false;
			}
		}
		return true;
	}

	private static void awaitListening(boolean listening) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (!allListening(listening) && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(allListening(listening)).as("every replica's listener listening: %s", listening).isTrue();
	}

	private static boolean allListening(boolean listening) {
		return replicas.stream()
			.allMatch((replica) -> replica.getBean(PolicyChangeListener.class).isListening() == listening);
	}

	private static double millis(Duration duration) {
		return duration.toNanos() / 1_000_000.0;
	}

}
