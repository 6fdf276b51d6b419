package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/**
 * Opens the listener's connection with the PostgreSQL driver itself, to the URL and with
 * the credentials Spring Boot built the data source from. The connection is never part of
 * the pool: it takes no slot from the application's requests, pool housekeeping (maximum
 * lifetime, leak detection, eviction) never sees a connection that is busy for good, and a
 * connection the listener loses cannot be handed to a request.
 */
final class DriverConnectionFactory implements PolicyListenerConnectionFactory {

	/** How the connection shows in {@code pg_stat_activity}, unless the URL says otherwise. */
	static final String APPLICATION_NAME = "ratelimit-policy-listener";

	private static final String CONNECT_TIMEOUT_SECONDS = "10";

	private final JdbcConnectionDetails details;

	private final Driver driver = new org.postgresql.Driver();

	DriverConnectionFactory(JdbcConnectionDetails details) {
		this.details = details;
	}

	@Override
	public @Nullable Connection connect() throws SQLException {
		// Defaults only: parameters in the URL win.
		Properties properties = new Properties();
		putIfPresent(properties, "user", this.details.getUsername());
		putIfPresent(properties, "password", this.details.getPassword());
		properties.setProperty("ApplicationName", APPLICATION_NAME);
		properties.setProperty("connectTimeout", CONNECT_TIMEOUT_SECONDS);
		// The connection is idle for long stretches; keepalives let the network notice a dead peer.
		properties.setProperty("tcpKeepAlive", "true");
		// The driver answers null for a URL that is not PostgreSQL's.
		return this.driver.connect(this.details.getJdbcUrl(), properties);
	}

	private static void putIfPresent(Properties properties, String name, @Nullable String value) {
		if (value != null) {
			properties.setProperty(name, value);
		}
	}

}
