package io.ratelimit.autoconfigure.migration;

import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.util.ClassUtils;

/**
 * The databases the limiter's migrations are written for: each has a migration folder of
 * its own, named as Spring Boot names vendors in Flyway locations, and needs Flyway's
 * support for it on the class path.
 */
enum SchemaDatabase {

	POSTGRESQL(DatabaseDriver.POSTGRESQL, "PostgreSQL", "org.flywaydb.database.postgresql.PostgreSQLDatabaseType",
			"org.flywaydb:flyway-database-postgresql"),

	H2(DatabaseDriver.H2, "H2", "org.flywaydb.core.internal.database.h2.H2DatabaseType", "org.flywaydb:flyway-core");

	private final DatabaseDriver driver;

	private final String displayName;

	private final String flywayDatabaseType;

	private final String flywayModule;

	SchemaDatabase(DatabaseDriver driver, String displayName, String flywayDatabaseType, String flywayModule) {
		this.driver = driver;
		this.displayName = displayName;
		this.flywayDatabaseType = flywayDatabaseType;
		this.flywayModule = flywayModule;
	}

	/**
	 * Returns the supported database a driver is for, or {@code null}.
	 */
	static @Nullable SchemaDatabase of(DatabaseDriver driver) {
		return Arrays.stream(values()).filter((database) -> database.driver == driver).findFirst().orElse(null);
	}

	static List<String> displayNames() {
		return Arrays.stream(values()).map((database) -> database.displayName).toList();
	}

	/**
	 * The folder of this database's own migrations, under the migrations' location.
	 */
	String folder() {
		return this.driver.getId();
	}

	/**
	 * Returns whether Flyway, loading its database support through the given class loader,
	 * can migrate this database. Flyway finds that support with a service loader, so a
	 * missing module would otherwise surface as Flyway's "Unsupported Database".
	 */
	boolean isSupportedByFlyway(ClassLoader classLoader) {
		return ClassUtils.isPresent(this.flywayDatabaseType, classLoader);
	}

	String flywayModule() {
		return this.flywayModule;
	}

}
