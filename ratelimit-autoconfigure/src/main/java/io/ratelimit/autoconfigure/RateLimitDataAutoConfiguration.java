package io.ratelimit.autoconfigure;

import io.ratelimit.autoconfigure.jpa.RateLimitJpaConfiguration;
import io.ratelimit.autoconfigure.migration.RateLimitMigrationConfiguration;
import io.ratelimit.core.RateLimiter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The limiter's tables: created by its own migration, read with Spring Data JPA. Without
 * a database the limiter runs on its built-in policies. The migration follows
 * {@code ratelimit.schema.migrate} alone, not {@code ratelimit.enabled}: switching limiting
 * off must not break application migrations that seed policy rows.
 */
@AutoConfiguration(after = { DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class },
		before = { FlywayAutoConfiguration.class, RateLimitAutoConfiguration.class })
@ConditionalOnClass(RateLimiter.class)
@Import({ RateLimitMigrationConfiguration.class, RateLimitJpaConfiguration.class })
public class RateLimitDataAutoConfiguration {

}
