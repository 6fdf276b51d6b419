package io.ratelimit.autoconfigure.migration;

import org.flywaydb.core.api.configuration.FluentConfiguration;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;

/**
 * Lets the application's Flyway start on a fresh database that holds only the limiter's
 * tables. Flyway refuses a non-empty schema without its history table; when the limiter
 * created the only tables there, a baseline at version 0 is exactly a fresh start: every
 * application migration still runs. Any other non-empty schema is left to Flyway's own
 * judgement, and an explicit {@code spring.flyway.baseline-on-migrate} always wins.
 */
class ApplicationFlywayBaseline implements FlywayConfigurationCustomizer {

	private final RateLimitSchemaMigration migration;

	ApplicationFlywayBaseline(RateLimitSchemaMigration migration) {
		this.migration = migration;
	}

	@Override
	public void customize(FluentConfiguration configuration) {
		if (this.migration.migratedEmptySchema() && !configuration.isBaselineOnMigrate()) {
			configuration.baselineOnMigrate(true).baselineVersion("0");
		}
	}

}
