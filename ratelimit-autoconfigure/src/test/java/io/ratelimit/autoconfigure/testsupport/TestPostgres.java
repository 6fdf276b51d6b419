package io.ratelimit.autoconfigure.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Where the tests find PostgreSQL, in this order:
 * <ol>
 * <li>the environment: {@code RATELIMIT_TEST_POSTGRES_URL} (a JDBC URL of a database the
 * user may create databases from, e.g. {@code jdbc:postgresql://db:5432/postgres}),
 * {@code RATELIMIT_TEST_POSTGRES_USER} and {@code RATELIMIT_TEST_POSTGRES_PASSWORD};</li>
 * <li>a Testcontainers container, when a Docker engine is available;</li>
 * <li>the local server on {@code 127.0.0.1:5432}, user {@code postgres}.</li>
 * </ol>
 * Each test class gets a database of its own, created for it and dropped after it. The
 * name carries its creation time, so that the databases of an interrupted run (a killed
 * build drops nothing) are dropped by a later run once they are a day old; a run that is
 * still going is never that old.
 */
public final class TestPostgres {

	private static final String PREFIX = "ratelimit_test_";

	private static @Nullable Server server;

	private TestPostgres() {
	}

	/**
	 * Creates a fresh database for one test class. Register the result with
	 * {@code @RegisterExtension} so it is dropped when the class is done.
	 * @return the new database
	 */
	public static PostgresDatabase newDatabase() {
		Server server = server();
		String name = PREFIX + Instant.now().getEpochSecond() + "_"
				+ UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		server.execute("CREATE DATABASE " + name);
		return new PostgresDatabase(server.urlOf(name), server.user(), server.password(),
				() -> server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"), (available) -> {
					server.execute("ALTER DATABASE " + name + " ALLOW_CONNECTIONS " + available);
					if (!available) {
						server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
								+ name + "' AND pid <> pg_backend_pid()");
					}
				});
	}

	private static synchronized Server server() {
		if (server == null) {
			server = locate();
			server.dropDatabasesCreatedBefore(Instant.now().minus(Duration.ofDays(1)));
		}
		return server;
	}

	private static Server locate() {
		String url = System.getenv("RATELIMIT_TEST_POSTGRES_URL");
		if (url != null && !url.isBlank()) {
			return new Server(url, env("RATELIMIT_TEST_POSTGRES_USER", "postgres"),
					env("RATELIMIT_TEST_POSTGRES_PASSWORD", ""));
		}
		if (DockerClientFactory.instance().isDockerAvailable()) {
			PostgreSQLContainer container = new PostgreSQLContainer("postgres:15-alpine");
			container.start();
			return new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword());
		}
		return new Server("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value != null) ? value : fallback;
	}

	private record Server(String adminUrl, String user, String password) {

		String urlOf(String database) {
			int slash = this.adminUrl.indexOf('/', "jdbc:postgresql://".length());
			int query = this.adminUrl.indexOf('?', slash);
			return this.adminUrl.substring(0, slash + 1) + database
					+ ((query >= 0) ? this.adminUrl.substring(query) : "");
		}

		void dropDatabasesCreatedBefore(Instant moment) {
			List<String> stale = new ArrayList<>();
			try (Connection connection = DriverManager.getConnection(this.adminUrl, this.user, this.password);
					Statement statement = connection.createStatement();
					ResultSet names = statement.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '"
							+ PREFIX + "%'")) {
				while (names.next()) {
					String name = names.getString(1);
					String[] parts = name.substring(PREFIX.length()).split("_");
					if (parts.length == 2 && parts[0].matches("[0-9]{1,19}")
							&& Long.parseLong(parts[0]) < moment.getEpochSecond()) {
						stale.add(name);
					}
				}
			}
			catch (SQLException ex) {
				return; // Tidying up is a courtesy; the tests do not depend on it.
			}
			stale.forEach((name) -> execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
		}

		void execute(String sql) {
			try (Connection connection = DriverManager.getConnection(this.adminUrl, this.user, this.password);
					Statement statement = connection.createStatement()) {
				statement.execute(sql);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("PostgreSQL at " + this.adminUrl + " refused '"
						+ sql.toLowerCase(Locale.ROOT) + "': " + ex.getMessage(), ex);
			}
		}

	}

}
