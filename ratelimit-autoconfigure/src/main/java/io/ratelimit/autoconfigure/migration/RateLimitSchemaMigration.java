package io.ratelimit.autoconfigure.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * Creates and upgrades the limiter's tables with Flyway, as a plain bean rather than a
 * {@code Flyway} bean: Spring Boot creates the application's own Flyway only when there
 * is no {@code Flyway} bean, and that one must keep working untouched. The history table
 * is the limiter's own, so neither sees the other's migrations. It runs before the
 * application's Flyway and JPA, so application migrations may seed policy rows.
 */
public class RateLimitSchemaMigration implements InitializingBean {

	/** Where the migrations are in the jar (from the top-level {@code db/migration}). */
	public static final String LOCATION = "classpath:io/ratelimit/db/migration";

	/** The limiter's own Flyway history table. */
	public static final String HISTORY_TABLE = "rate_limit_schema_history";

	private final DataSource dataSource;

	private boolean migratedEmptySchema;

	public RateLimitSchemaMigration(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public void afterPropertiesSet() throws SQLException {
		this.migratedEmptySchema = !hasTables();
		Flyway.configure()
			.dataSource(this.dataSource)
			.locations(LOCATION)
			.table(HISTORY_TABLE)
			// The schema usually holds the application's tables already.
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.load()
			.migrate();
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
