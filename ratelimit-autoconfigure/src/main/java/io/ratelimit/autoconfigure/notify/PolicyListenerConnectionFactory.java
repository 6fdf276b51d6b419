package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * Opens the connection {@link PolicyChangeListener} holds for as long as it listens. Like
 * {@link java.sql.Driver#connect}, it answers {@code null} for a database it does not
 * handle: here, one that is not PostgreSQL, where there is nothing to listen to. Define a
 * bean of this type to open the connection differently (another host, other credentials
 * or driver properties).
 */
@FunctionalInterface
public interface PolicyListenerConnectionFactory {

	/**
	 * Opens a new connection to the database the policies are read from.
	 * @return the connection, which the caller closes, or {@code null} if the database is
	 * not PostgreSQL
	 * @throws SQLException if the database cannot be reached
	 */
	@Nullable Connection connect() throws SQLException;

}
