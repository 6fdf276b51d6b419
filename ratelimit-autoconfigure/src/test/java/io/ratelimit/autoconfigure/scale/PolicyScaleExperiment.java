package io.ratelimit.autoconfigure.scale;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.PolicySnapshot;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openjdk.jol.info.GraphLayout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Policy tables at the scale of a customer base, for {@code docs/scaling.md}: how long a
 * reload of N rows takes and how much heap the loaded policies keep.
 * <p>
 * Workload: the test application on a PostgreSQL database of its own, with the periodic
 * refresh and change notifications off. For each N (property
 * {@code ratelimit.experiment.rows}, default {@code 100000,1000000}) the table is filled
 * in one statement with N rows, each for a tenant of its own ({@code tenant-0000001}, ...)
 * on one of four endpoints, at one of 50 rates: the exceptions of a customer base, with no
 * tenant name shared between rows. Then the policies are reloaded through
 * {@link ReloadablePolicies#reload()}, the path the admin endpoint, the periodic refresh and
 * change notifications take (JPA read, validation, snapshot, the reload listeners), three
 * times, and the fastest and slowest are reported.
 * <p>
 * Retained heap is measured two ways: the heap in use after full collections with the
 * N-row snapshot in force, minus the same with the seeded three-row snapshot in force
 * ({@code MemoryMXBean}, so it counts whatever the load left behind anywhere); and JOL's
 * walk of the snapshot object graph, shared parts such as the settings included. Both are
 * divided by N. Last, the admin listing ({@code GET /actuator/ratelimit}) is fetched and
 * its size reported. The rows are deleted afterwards, and the database dropped.
 * <p>
 * Run: {@code ./mvnw -q -o -pl ratelimit-core,ratelimit-autoconfigure test
 * -Dtest=PolicyScaleExperiment -Dratelimit.experiment=policies
 * -Dsurefire.failIfNoSpecifiedTests=false}
 */
@EnabledIfSystemProperty(named = "ratelimit.experiment", matches = "policies")
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policy.refresh-interval=1h", "ratelimit.policy.notify.enabled=false",
				"ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"management.endpoints.web.exposure.include=ratelimit", "spring.jpa.open-in-view=false",
				"ratelimit.policy.maximum-policies=2000000", "logging.level.io.ratelimit=ERROR" })
@DirtiesContext
class PolicyScaleExperiment {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final String[] ENDPOINTS = { "GET /api/products", "GET /api/users/*", "GET /api/orders/*/items",
			"GET /api/reports/*" };

	private static final int RELOADS = 3;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@Autowired
	private ReloadablePolicies policies;

	@LocalServerPort
	private int port;

	@Test
	void reloadWhenTableHoldsTheExceptionsOfACustomerBaseThenReportTimeAndHeap() throws Exception {
		int[] sizes = Arrays.stream(System.getProperty("ratelimit.experiment.rows", "100000,1000000").split(","))
			.mapToInt((size) -> Integer.parseInt(size.strip()))
			.toArray();
		for (int rows : sizes) {
			measure(rows);
		}
	}

	private void measure(int rows) throws Exception {
		assertThat(this.policies.reload().succeeded()).isTrue();
		long before = heapAfterCollections();
		insert(rows);
		try {
			long fastest = Long.MAX_VALUE;
			long slowest = 0;
			PolicyReloadResult result = null;
			for (int i = 0; i < RELOADS; i++) {
				long start = System.nanoTime();
				result = this.policies.reload();
				long nanos = System.nanoTime() - start;
				assertThat(result.failure()).isNull();
				fastest = Math.min(fastest, nanos);
				slowest = Math.max(slowest, nanos);
			}
			PolicySnapshot snapshot = result.snapshot();
			assertThat(snapshot.policies()).hasSize(rows + 3);
			long retained = heapAfterCollections() - before;
			long graph = GraphLayout.parseInstance(snapshot).totalSize();
			HttpResponse<String> listing = new Http(this.port).get("/actuator/ratelimit", "X-Forwarded-For",
					"198.51.100.7", TestShopApplication.TEST_USER, "operator");
			System.out.printf("%n%,d rows: reload %.2f s (fastest of %d) to %.2f s (slowest); retained heap %,d bytes "
					+ "(%.1f bytes per row) by GC'd heap, snapshot graph %,d bytes (%.1f bytes per row) by JOL; "
					+ "admin listing HTTP %d, %,d bytes%n", rows, fastest / 1e9, RELOADS, slowest / 1e9, retained,
					(double) retained / rows, graph, (double) graph / rows, listing.statusCode(),
					listing.body().length());
		}
		finally {
			sql("DELETE FROM rate_limit_policy WHERE project_id LIKE 'tenant-%'");
		}
	}

	private static void insert(int rows) throws SQLException {
		StringBuilder endpoints = new StringBuilder("(ARRAY[");
		for (int i = 0; i < ENDPOINTS.length; i++) {
			endpoints.append((i > 0) ? ", " : "").append('\'').append(ENDPOINTS[i]).append('\'');
		}
		endpoints.append("])[1 + g % ").append(ENDPOINTS.length).append(']');
		sql("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) SELECT " + endpoints
				+ ", 'tenant-' || lpad(g::text, 7, '0'), 5 + g % 50 FROM generate_series(1, " + rows + ") g");
		sql("ANALYZE rate_limit_policy");
	}

	private static void sql(String statement) throws SQLException {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute(statement);
		}
	}

	private static long heapAfterCollections() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(100);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
