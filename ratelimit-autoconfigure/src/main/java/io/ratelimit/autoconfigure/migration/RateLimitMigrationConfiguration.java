package io.ratelimit.autoconfigure.migration;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryDependsOnPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Runs the limiter's schema migration before the application's Flyway and JPA.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Flyway.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "ratelimit.schema", name = "migrate", matchIfMissing = true)
@Import({ RateLimitMigrationConfiguration.FlywayDependsOnMigration.class,
		RateLimitMigrationConfiguration.EntityManagerFactoryDependsOnMigration.class })
public class RateLimitMigrationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitSchemaMigration rateLimitSchemaMigration(DataSource dataSource) {
		return new RateLimitSchemaMigration(dataSource);
	}

	/**
	 * The application's own Flyway is Spring Boot's ({@code spring-boot-starter-flyway});
	 * with {@code flyway-core} alone only the limiter migrates.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer")
	static class ApplicationFlyway {

		@Bean
		@ConditionalOnMissingBean
		ApplicationFlywayBaseline rateLimitApplicationFlywayBaseline(RateLimitSchemaMigration migration) {
			return new ApplicationFlywayBaseline(migration);
		}

	}

	/**
	 * The application's Flyway is built after the limiter's tables exist.
	 */
	static class FlywayDependsOnMigration extends AbstractDependsOnBeanFactoryPostProcessor {

		FlywayDependsOnMigration() {
			super(Flyway.class, RateLimitSchemaMigration.class);
		}

	}

	/**
	 * JPA starts after the limiter's tables exist, so schema validation finds them.
	 */
	@ConditionalOnClass(name = { "jakarta.persistence.EntityManagerFactory",
			"org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryDependsOnPostProcessor" })
	static class EntityManagerFactoryDependsOnMigration extends EntityManagerFactoryDependsOnPostProcessor {

		EntityManagerFactoryDependsOnMigration() {
			super(RateLimitSchemaMigration.class);
		}

	}

}
