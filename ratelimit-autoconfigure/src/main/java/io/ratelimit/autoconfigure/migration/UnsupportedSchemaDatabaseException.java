package io.ratelimit.autoconfigure.migration;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The limiter's schema migration cannot create its tables in the application's database:
 * either the limiter has no migrations for that database, or Flyway lacks the module it
 * needs for it. Thrown at startup, before Flyway runs, and explained by
 * {@link UnsupportedSchemaDatabaseFailureAnalyzer}, which names the database, the
 * supported ones and the way out.
 */
public class UnsupportedSchemaDatabaseException extends IllegalStateException {

	private final String database;

	private final List<String> supportedDatabases;

	private final @Nullable String missingModule;

	private UnsupportedSchemaDatabaseException(String message, String database, List<String> supportedDatabases,
			@Nullable String missingModule) {
		super(message);
		this.database = database;
		this.supportedDatabases = List.copyOf(supportedDatabases);
		this.missingModule = missingModule;
	}

	/**
	 * Creates an exception for a database the limiter has no migrations for.
	 * @param database the database's product name and version, as its driver reports them
	 * @param supportedDatabases the names of the databases the migrations support
	 * @return the exception
	 */
	public static UnsupportedSchemaDatabaseException unsupportedDatabase(String database,
			List<String> supportedDatabases) {
		return new UnsupportedSchemaDatabaseException("The rate limiter's schema migration does not support "
				+ database + "; it supports " + String.join(" and ", supportedDatabases), database,
				supportedDatabases, null);
	}

	/**
	 * Creates an exception for a supported database that Flyway cannot migrate because its
	 * module for that database is missing from the class path.
	 * @param database the database's product name and version, as its driver reports them
	 * @param supportedDatabases the names of the databases the migrations support
	 * @param missingModule the Maven coordinates ({@code groupId:artifactId}) of Flyway's module
	 * @return the exception
	 */
	public static UnsupportedSchemaDatabaseException missingFlywayModule(String database,
			List<String> supportedDatabases, String missingModule) {
		return new UnsupportedSchemaDatabaseException("The rate limiter's schema migration needs " + missingModule
				+ " on the class path to migrate " + database, database, supportedDatabases, missingModule);
	}

	/**
	 * Returns the database's product name and version, as its driver reports them.
	 * @return the database, e.g. {@code MariaDB 11.4.2-MariaDB}
	 */
	public String getDatabase() {
		return this.database;
	}

	/**
	 * Returns the names of the databases the limiter's migrations support.
	 * @return the supported databases, e.g. {@code [PostgreSQL, H2]}
	 */
	public List<String> getSupportedDatabases() {
		return this.supportedDatabases;
	}

	/**
	 * Returns Flyway's module that the database needs and the class path lacks, or
	 * {@code null} when the database itself is not supported.
	 * @return the module's {@code groupId:artifactId}, or {@code null}
	 */
	public @Nullable String getMissingModule() {
		return this.missingModule;
	}

}
