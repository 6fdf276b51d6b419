package io.ratelimit.autoconfigure.notify;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitDataAutoConfiguration;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the change listener is set up, and what it does on a database without
 * LISTEN/NOTIFY. The PostgreSQL behaviour is in {@link PolicyChangeNotificationEndToEndTest}.
 */
class RateLimitPolicyNotifyAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
				TransactionAutoConfiguration.class, FlywayAutoConfiguration.class, RateLimitDataAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitPolicyNotifyAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.jpa.open-in-view=false", "spring.flyway.locations=classpath:io/ratelimit/no-application-migrations");

	@Test
	void runWhenPostgresDriverPresentThenListenerAndConnectionFactoryFromConnectionDetails() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(PolicyChangeListener.class);
			assertThat(context.getBean(PolicyListenerConnectionFactory.class))
				.isInstanceOf(DriverConnectionFactory.class);
		});
	}

	@Test
	void runWhenNotifySwitchedOffThenNoListener() {
		this.runner.withPropertyValues("ratelimit.policy.notify.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PolicyChangeListener.class));
	}

	@Test
	void runWhenPostgresDriverMissingThenNoListener() {
		this.runner.withClassLoader(new FilteredClassLoader(PGConnection.class))
			.run((context) -> assertThat(context).doesNotHaveBean(PolicyChangeListener.class));
	}

	@Test
	void runWhenLimiterDisabledThenNoListener() {
		this.runner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PolicyChangeListener.class));
	}

	@Test
	void runWhenUserDefinesConnectionFactoryThenListenerUsesIt() {
		this.runner.withUserConfiguration(UserConnections.class)
			.run((context) -> assertThat(context.getBean(PolicyListenerConnectionFactory.class))
				.isSameAs(UserConnections.FACTORY));
	}

	@Test
	void runWhenDatabaseIsH2ThenNothingListenedToAndPeriodicRefreshStillWorks() {
		this.runner.withPropertyValues("ratelimit.policy.refresh-interval=100ms").run((context) -> {
			PolicyChangeListener listener = context.getBean(PolicyChangeListener.class);
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			assertThat(policies.current().defaultPolicy().isBuiltIn()).isTrue();

			new JdbcTemplate(context.getBean(DataSource.class))
				.update("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('default', 7)");

			// A bounded wait for the refresh (100 ms interval), not a timing measurement.
			Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
			while (policies.current().defaultPolicy().isBuiltIn() && Instant.now().isBefore(deadline)) {
				Thread.sleep(20);
			}
			assertThat(policies.current().defaultPolicy().rps()).isEqualByComparingTo(BigDecimal.valueOf(7));
			// The driver declines an H2 URL: no connection is opened, nothing listens.
			assertThat(context.getBean(PolicyListenerConnectionFactory.class).connect()).isNull();
			assertThat(listener.isListening()).isFalse();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserConnections {

		static final PolicyListenerConnectionFactory FACTORY = () -> null;

		@Bean
		PolicyListenerConnectionFactory userConnections() {
			return FACTORY;
		}

	}

}
