package io.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;

import io.ratelimit.autoconfigure.jpa.JpaPolicyStore;
import io.ratelimit.autoconfigure.migration.RateLimitSchemaMigration;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySource;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each condition of the auto-configuration, proven on a context of its own.
 */
class RateLimitAutoConfigurationTest {

	private static final AutoConfigurations WEB = AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
			WebMvcAutoConfiguration.class, RateLimitDataAutoConfiguration.class, RateLimitAutoConfiguration.class);

	private static final AutoConfigurations DATA = AutoConfigurations.of(DataSourceAutoConfiguration.class,
			HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class, FlywayAutoConfiguration.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner().withConfiguration(WEB)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.jpa.open-in-view=false", "spring.flyway.locations=classpath:io/ratelimit/no-application-migrations");

	@Test
	void runWhenServletWebApplicationThenRegistersFilterForRequestDispatchBeforeSecurity() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimiter.class);
			FilterRegistrationBean<?> registration = context.getBean("rateLimitFilterRegistration",
					FilterRegistrationBean.class);
			assertThat(registration.getOrder()).isEqualTo(-110);
			assertThat(registration.determineDispatcherTypes()).containsExactly(jakarta.servlet.DispatcherType.REQUEST);
		});
	}

	@Test
	void runWhenPositionedAfterSecurityThenOrderedAfterTheSecurityChain() {
		this.runner.withPropertyValues("ratelimit.filter.position=after-security")
			.run((context) -> assertThat(
					context.getBean("rateLimitFilterRegistration", FilterRegistrationBean.class).getOrder())
				.isEqualTo(-90));
	}

	@Test
	void runWhenDisabledThenNoLimiterButSchemaStillMigrated() {
		this.runner.withConfiguration(DATA).withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RateLimiter.class);
			assertThat(context).doesNotHaveBean("rateLimitFilterRegistration");
			assertThat(context).doesNotHaveBean(JpaPolicyStore.class);
			assertThat(context).hasSingleBean(RateLimitSchemaMigration.class);
		});
	}

	@Test
	void runWhenSchemaMigrationSwitchedOffThenNotMigrated() {
		this.runner.withConfiguration(DATA).withPropertyValues("ratelimit.schema.migrate=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitSchemaMigration.class);
		});
	}

	@Test
	void runWhenNotAWebApplicationThenNoFilter() {
		new ApplicationContextRunner().withConfiguration(WEB)
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimiter.class));
	}

	@Test
	void runWhenJpaIsMissingThenBuiltInPoliciesServe() {
		this.runner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.data.jpa", "org.hibernate"))
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiter.class);
				assertThat(context).doesNotHaveBean(JpaPolicyStore.class);
				ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
				assertThat(policies.current().policies()).isEmpty();
				assertThat(policies.current().defaultPolicy().isBuiltIn()).isTrue();
			});
	}

	@Test
	void runWhenFlywayIsMissingThenNoSchemaMigration() {
		this.runner.withConfiguration(DATA)
			.withClassLoader(new FilteredClassLoader(Flyway.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiter.class);
				assertThat(context).doesNotHaveBean(RateLimitSchemaMigration.class);
			});
	}

	@Test
	void runWhenJpaAndFlywayPresentThenTablesCreatedAndPoliciesReadFromThem() {
		this.runner.withConfiguration(DATA).run((context) -> {
			assertThat(context).hasSingleBean(JpaPolicyStore.class);
			assertThat(context).hasSingleBean(RateLimitSchemaMigration.class);
			assertThat(context).hasBean("rateLimitApplicationFlywayBaseline");
			assertThat(context.getBean(JpaPolicyStore.class).load()).isEmpty();
		});
	}

	@Test
	void runWhenFlywayCoreWithoutSpringBootFlywayThenLimiterStillMigratesAlone() {
		// Spring Boot 4 runs an application's Flyway only with spring-boot-flyway; the
		// limiter's own migration needs flyway-core alone.
		this.runner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.flyway"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(Flyway.class);
				assertThat(context).hasSingleBean(RateLimitSchemaMigration.class);
				assertThat(context).doesNotHaveBean("rateLimitApplicationFlywayBaseline");
				assertThat(context.getBean(JpaPolicyStore.class).load()).isEmpty();
			});
	}

	@Test
	void runWhenUserDefinesBeansThenTheyReplaceOurs() {
		this.runner.withConfiguration(DATA).withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context.getBean(BucketStore.class)).isSameAs(UserBeans.STORE);
			assertThat(context).doesNotHaveBean(JpaPolicyStore.class);
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			assertThat(policies.current().policies()).extracting((policy) -> policy.origin()).containsExactly("row u1");
		});
	}

	@Test
	void runWhenPropertyInvalidThenFailureAnalysisNamesIt() {
		this.runner.withPropertyValues("ratelimit.client-ip.trusted-proxies=10.0.0.0/33").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("ratelimit.client-ip.trusted-proxies")
				.contains("10.0.0.0/33");
			assertThat(analysis.getAction()).isEqualTo(
					"Change the property 'ratelimit.client-ip.trusted-proxies' in your configuration.");
		});
	}

	@Test
	void runWhenWeightMalformedOrTooHeavyThenFailureAnalysisNamesWeights() {
		this.runner.withPropertyValues("ratelimit.weights=POST /api/orders:5").run((context) -> {
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.weights'").contains("POST /api/orders:5");
		});
		this.runner.withPropertyValues("ratelimit.weights=POST /api/orders=50").run((context) -> {
			assertThat(analyze(context.getStartupFailure()).getDescription()).contains("'ratelimit.weights'")
				.contains("exceeds the capacity 20");
		});
	}

	@Test
	void runWhenGroupsConfiguredThenPoliciesKnowTheirEndpoints() {
		this.runner.withPropertyValues("ratelimit.groups.content=POST /api/issues,POST /api/comments").run((context) -> {
			assertThat(context.getBean(ReloadablePolicies.class).settings().groups().asMap()).containsOnlyKeys("content");
			assertThat(context.getBean(ReloadablePolicies.class).settings().groups().asMap().get("content"))
				.extracting(Object::toString)
				.containsExactlyInAnyOrder("POST /api/issues", "POST /api/comments");
		});
	}

	@Test
	void runWhenGroupTemplateMalformedThenFailureAnalysisNamesGroups() {
		this.runner.withPropertyValues("ratelimit.groups.content=post /api/issues").run((context) -> {
			assertThat(analyze(context.getStartupFailure()).getDescription()).contains("'ratelimit.groups'")
				.contains("group 'content'");
		});
	}

	@Test
	void runWhenSecretTooShortThenFailureAnalysisWithoutEchoingIt() {
		this.runner.withPropertyValues("ratelimit.key-secret=tiny-secret").run((context) -> {
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ratelimit.key-secret'").doesNotContain("tiny-secret");
		});
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new InvalidRateLimitPropertyFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		static final BucketStore STORE = LocalBucketStore.create(10);

		@Bean
		BucketStore userBucketStore() {
			return STORE;
		}

		@Bean
		PolicySource userPolicySource() {
			return () -> List.of(new PolicyRow("u1", "default", null, BigDecimal.ONE, null));
		}

	}

}
