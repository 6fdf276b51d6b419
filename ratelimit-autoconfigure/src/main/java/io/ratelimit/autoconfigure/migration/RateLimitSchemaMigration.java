package io.ratelimit.autoconfigure.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.StringUtils;

/**
 * Creates and upgrades the limiter's tables with Flyway, as a plain bean rather than a
 * {@code Flyway} bean: Spring Boot creates the application's own Flyway only when there
 * is no {@code Flyway} bean, and that one must keep working untouched. The history table
 * is the limiter's own, so neither sees the other's migrations. It runs before the
 * application's Flyway and JPA, so application migrations may seed policy rows.
 * <p>
 * Portable migrations are in {@code LOCATION/common}, those one database needs in a folder
 * named for it ({@code LOCATION/postgresql}, {@code LOCATION/h2}), as Spring Boot names
 * vendors for {@code spring.flyway.locations}. Every vendor folder has the same versions,
 * possibly as an empty migration, so a schema version means the same on every database.
 * The migrations are written for PostgreSQL and H2; on any other database startup fails
 * with an {@link UnsupportedSchemaDatabaseException} before Flyway runs.
 */
public class RateLimitSchemaMigration implements InitializingBean, SchemaMigration {

	private static final Log logger = LogFactory.getLog(RateLimitSchemaMigration.class);

	/** Where the migrations are in the jar (from the top-level {@code db/migration}). */
	public static final String LOCATION = "classpath:io/ratelimit/db/migration";

	/** The portable migrations, run on every database. */
	static final String COMMON_LOCATION = LOCATION + "/common";

	/** The limiter's own Flyway history table. */
	public static final String HISTORY_TABLE = "rate_limit_schema_history";

	private final DataSource dataSource;

	private boolean migratedEmptySchema;

	private volatile boolean pending;

	public RateLimitSchemaMigration(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Migrates at startup. An unreachable database does not stop the application: the
	 * built-in policies apply and the migration is owed until the database answers. Any
	 * other failure (a migration that does not apply) stops startup, as it should.
	 */
	@Override
	public void afterPropertiesSet() {
		boolean reachable;
		try {
			this.migratedEmptySchema = !hasTables();
			reachable = true;
		}
		catch (SQLException | CannotGetJdbcConnectionException ex) {
			reachable = false;
			this.pending = true;
			logger.warn(Diagnostic.W007.message("The database could not be reached to create or upgrade the rate "
					+ "limiter's tables (" + ex.getMessage() + "). The built-in policies (ratelimit.policy.default-rps, "
					+ "ratelimit.policy.unknown-rps) apply until it can be; the migration is retried before each "
					+ "policy load."));
		}
		if (reachable) {
			migrate();
		}
	}

	@Override
	public synchronized void migrateIfPending() {
		if (this.pending) {
			migrate();
			this.pending = false;
			logger.info("Created or upgraded the rate limiter's tables after the database became reachable");
		}
	}

	/**
	 * Returns whether the migration is still owed because the database was unreachable.
	 * @return whether the tables may not exist yet
	 */
	public boolean isPending() {
		return this.pending;
	}

	private void migrate() {
		FluentConfiguration configuration = Flyway.configure();
		SchemaDatabase database = database(configuration.getClassLoader());
		configuration.dataSource(this.dataSource)
			.locations(COMMON_LOCATION, LOCATION + "/" + database.folder())
			.table(HISTORY_TABLE)
			// The schema usually holds the application's tables already.
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.load()
			.migrate();
	}

	/**
	 * Returns the database the tables are in, refusing one the migrations are not written
	 * for, or that Flyway cannot migrate, before Flyway starts: its own failure would name
	 * neither the supported databases nor the way out.
	 */
	private SchemaDatabase database(ClassLoader flywayClassLoader) {
		DatabaseProduct product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(this.dataSource, (metaData) -> new DatabaseProduct(
					metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion(), metaData.getURL()));
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not tell which database the rate limiter's tables are in", ex);
		}
		SchemaDatabase database = SchemaDatabase.of(product.driver());
		if (database == null) {
			throw UnsupportedSchemaDatabaseException.unsupportedDatabase(product.description(),
					SchemaDatabase.displayNames());
		}
		if (!database.isSupportedByFlyway(flywayClassLoader)) {
			throw UnsupportedSchemaDatabaseException.missingFlywayModule(product.description(),
					SchemaDatabase.displayNames(), database.flywayModule());
		}
		return database;
	}

	/**
	 * The database as its driver describes it.
	 */
	private record DatabaseProduct(@Nullable String name, @Nullable String version, @Nullable String url) {

		/**
		 * Names the database by its product name, which the driver reports whatever wraps
		 * the connection, and by its URL only when the product name is not one Spring Boot
		 * knows.
		 */
		DatabaseDriver driver() {
			DatabaseDriver driver = (this.name != null) ? DatabaseDriver.fromProductName(this.name)
					: DatabaseDriver.UNKNOWN;
			return (driver != DatabaseDriver.UNKNOWN || !StringUtils.hasLength(this.url)) ? driver
					: DatabaseDriver.fromJdbcUrl(this.url);
		}

		String description() {
			String name = (this.name != null) ? this.name : "an unnamed database";
			return (this.version != null) ? name + " " + this.version : name;
		}

	}

	/**
	 * Returns whether the schema had no tables before the limiter's migration: a fresh
	 * database, where the application's Flyway would otherwise refuse the schema for holding
	 * the limiter's tables.
	 * @return whether the limiter's tables are the only ones in the schema
	 */
	public boolean migratedEmptySchema() {
		return this.migratedEmptySchema;
	}

	private boolean hasTables() throws SQLException {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (ResultSet tables = connection.getMetaData()
			.getTables(connection.getCatalog(), connection.getSchema(), "%", new String[] { "TABLE" })) {
			return tables.next();
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

}
