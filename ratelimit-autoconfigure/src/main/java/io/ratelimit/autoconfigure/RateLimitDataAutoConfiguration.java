package io.ratelimit.autoconfigure;

import io.ratelimit.autoconfigure.jpa.RateLimitJpaConfiguration;
import io.ratelimit.autoconfigure.migration.RateLimitMigrationConfiguration;
import io.ratelimit.core.RateLimiter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Import;

/**
 * The limiter's tables: created by its own migration, read with Spring Data JPA. Without
 * a database the limiter runs on its built-in policies. The migration follows
 * {@code ratelimit.schema.migrate} alone, not {@code ratelimit.enabled}: switching limiting
 * off must not break application migrations that seed policy rows.
 */
@AutoConfiguration(before = RateLimitAutoConfiguration.class,
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration" },
		beforeName = "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration")
@ConditionalOnClass(RateLimiter.class)
@Import({ RateLimitMigrationConfiguration.class, RateLimitJpaConfiguration.class })
public class RateLimitDataAutoConfiguration {

}
