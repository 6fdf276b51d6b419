package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code LOCAL} limits decide in memory: with the policies in PostgreSQL and Redis
 * configured for global ones, requests under layered {@code LOCAL} rows (per endpoint,
 * API-wide, points and a group), admitted and refused, by keys and by addresses, borrow no
 * database connection on the threads that serve them and send Redis no command. Redis is a server of this test's own, so
 * that nothing else counts in its statistics.
 */
class LocalLimitsRequestPathEndToEndTest {

	private static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	/** Connections borrowed on any thread. */
	private static final AtomicLong connectionsBorrowed = new AtomicLong();

	/** The names of Tomcat's threads, the ones that serve requests. */
	private static final String REQUEST_THREADS = "http-nio-";

	/** Connections borrowed on Tomcat's threads. */
	private static final AtomicLong connectionsBorrowedServingRequests = new AtomicLong();

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static RedisServerProcess redis;

	@BeforeAll
	static void startRedis() throws Exception {
		redis = RedisServerProcess.start();
	}

	@AfterAll
	static void stopRedis() {
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void requestsWhenEveryLimitIsLocalThenNoneBorrowsAConnectionOrSendsRedisACommand() throws Exception {
		try (ConfigurableApplicationContext app = new SpringApplicationBuilder(LayeredApiApplication.class,
				CountingConnections.class)
			.run("--server.port=0", "--spring.datasource.url=" + database.url(),
					"--spring.datasource.username=" + database.user(),
					"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
					"--spring.data.redis.url=" + redis.url(), "--ratelimit.key-secret=0123456789abcdef0123456789abcdef",
					"--ratelimit.policy.refresh-interval=1h", "--ratelimit.policy.default-rps=100",
					"--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
					"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
					"--ratelimit.api-key.hash-secret=" + HASH_SECRET,
					"--ratelimit.weights=POST /api/repos/*/issues=5, POST /api/repos/*/comments=5",
					"--ratelimit.groups.content-creation=POST /api/repos/*/issues, POST /api/repos/*/comments")) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("DELETE FROM rate_limit_policy");
				sql.execute("""
						INSERT INTO rate_limit_policy
						    (endpoint, limit_name, applies_to, endpoint_group, limit_count, limit_window, counts)
						VALUES
						    ('default', 'hourly',           'API',   NULL,               60, 'PT1H', 'REQUESTS'),
						    ('default', 'points',           'API',   NULL,               90, 'PT1M', 'POINTS'),
						    ('default', 'content-creation', 'GROUP', 'content-creation', 4,  'PT1M', 'REQUESTS')
						""");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/status', 1)");
				sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
						+ KeyedHasher.withSecret(HASH_SECRET).hashHex("user-key") + "', 'user', 'acme')");
			}
			long borrowedByReload = connectionsBorrowed.get();
			assertThat(app.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
			// The count sees the limiter's own work: a reload reads the table.
			assertThat(connectionsBorrowed.get()).as("connections a reload borrowed").isGreaterThan(borrowedByReload);
			assertThat(app.getBean(ReloadableApiKeys.class).reload()).isTrue();
			Http http = new Http(((WebServerApplicationContext) app).getWebServer().getPort());
			long borrowedBefore = connectionsBorrowedServingRequests.get();
			long commandsBefore = commandsProcessed();

			int admitted = 0;
			int refused = 0;
			for (int i = 0; i < 300; i++) {
				HttpResponse<String> response = switch (i % 4) {
					case 0 -> http.get("/api/repos/" + i, "X-API-Key", "user-key");
					case 1 -> http.send("POST", "/api/repos/1/issues", "X-API-Key", "user-key");
					case 2 -> http.get("/api/status", "X-Forwarded-For", "198.51.100." + (i % 7));
					default -> http.get("/api/repos/" + i, "X-Forwarded-For", "203.0.113." + (i % 50));
				};
				assertThat(response.statusCode()).isIn(200, 201, 429);
				if (response.statusCode() == 429) {
					refused++;
				}
				else {
					admitted++;
				}
			}

			// The count above watches the threads that served these requests.
			assertThat(Thread.getAllStackTraces().keySet()).anySatisfy(
					(thread) -> assertThat(thread.getName()).startsWith(REQUEST_THREADS));
			assertThat(admitted).as("admitted").isPositive();
			assertThat(refused).as("refused").isPositive();
			// Reloads the inserts announced (NOTIFY) may still run meanwhile, on threads of their own.
			assertThat(connectionsBorrowedServingRequests.get() - borrowedBefore)
				.as("database connections borrowed serving requests")
				.isZero();
			// The first reading's own INFO is the one command Redis processed meanwhile.
			assertThat(commandsProcessed() - commandsBefore).as("Redis commands").isEqualTo(1);
		}
	}

	private static long commandsProcessed() {
		return redis.cli("INFO", "stats")
			.lines()
			.filter((line) -> line.startsWith("total_commands_processed:"))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
			.findFirst()
			.orElseThrow();
	}

	private static void borrowed() {
		connectionsBorrowed.incrementAndGet();
		if (Thread.currentThread().getName().startsWith(REQUEST_THREADS)) {
			connectionsBorrowedServingRequests.incrementAndGet();
		}
	}

	/**
	 * Counts the connections borrowed from the application's data source, whoever borrows
	 * them.
	 */
	@Configuration(proxyBeanMethods = false)
	static class CountingConnections {

		@Bean
		static BeanPostProcessor countingDataSource() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof DataSource dataSource)) {
						return bean;
					}
					return new DelegatingDataSource(dataSource) {

						@Override
						public Connection getConnection() throws SQLException {
							borrowed();
							return super.getConnection();
						}

						@Override
						public Connection getConnection(String username, String password) throws SQLException {
							borrowed();
							return super.getConnection(username, password);
						}

					};
				}

			};
		}

	}

}
