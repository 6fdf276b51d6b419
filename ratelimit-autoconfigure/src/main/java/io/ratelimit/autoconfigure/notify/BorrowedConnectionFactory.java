package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;

/**
 * Takes the listener's connection from the application's own data source and keeps it,
 * for an application that built its data source itself, so that only the data source
 * knows how to reach the database. From a pool, this takes one connection for good.
 */
final class BorrowedConnectionFactory implements PolicyListenerConnectionFactory {

	private final DataSource dataSource;

	BorrowedConnectionFactory(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public @Nullable Connection connect() throws SQLException {
		Connection connection = this.dataSource.getConnection();
		if (connection.isWrapperFor(PGConnection.class)) {
			return connection;
		}
		connection.close();
		return null;
	}

}
