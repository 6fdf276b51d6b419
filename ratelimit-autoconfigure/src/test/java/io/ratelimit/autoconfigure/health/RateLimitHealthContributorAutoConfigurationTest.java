package io.ratelimit.autoconfigure.health;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.metrics.ApiKeyMeterBinder;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.ApiKeySource;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySource;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimit} health contributor in each state of the policies, over a policy
 * source the test takes up and down.
 */
class RateLimitHealthContributorAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitHealthContributorAutoConfiguration.class))
		.withUserConfiguration(SourceConfiguration.class);

	private static Health health(AssertableWebApplicationContext context) {
		return context.getBean("ratelimitHealthIndicator", HealthIndicator.class).health();
	}

	@Test
	void healthWhenPoliciesLoadedThenUpWithSnapshotDetails() {
		this.runner.run((context) -> {
			Health health = health(context);

			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("version", 1L)
				.containsEntry("policies", 1)
				.containsEntry("rejectedRows", 1)
				.containsKeys("age", "loadedAt")
				.doesNotContainKeys("degraded", "lastReloadFailure");
			assertThat((long) health.getDetails().get("age")).isNotNegative();
		});
	}

	@Test
	void healthWhenLastReloadFailedThenUpAndDegradedWithLastGoodSnapshot() {
		this.runner.run((context) -> {
			context.getBean(SourceConfiguration.class).down.set(true);
			context.getBean(ReloadablePolicies.class).reload();

			Health health = health(context);

			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("version", 1L)
				.containsEntry("policies", 1)
				.containsEntry("degraded", true)
				.containsEntry("lastReloadFailure", "SQLException: Connection refused")
				.containsEntry("failedReloads", 1L);
		});
	}

	@Test
	void healthWhenReloadRecoversThenNoLongerDegraded() {
		this.runner.run((context) -> {
			SourceConfiguration source = context.getBean(SourceConfiguration.class);
			source.down.set(true);
			context.getBean(ReloadablePolicies.class).reload();
			source.down.set(false);
			context.getBean(ReloadablePolicies.class).reload();

			Health health = health(context);

			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("version", 2L).doesNotContainKey("degraded");
		});
	}

	@Test
	void healthWhenNothingLoadedYetThenUnknownNotDown() {
		this.runner.withPropertyValues("test.source-down-at-start=true").run((context) -> {
			Health health = health(context);

			assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
			assertThat(health.getDetails()).containsEntry("version", 0L)
				.containsEntry("lastReloadFailure", "SQLException: Connection refused")
				.containsKey("reason")
				.doesNotContainKey("loadedAt");
		});
	}

	@Test
	void runWhenHealthIndicatorDisabledThenAbsent() {
		this.runner.withPropertyValues("management.health.ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthIndicator"));
	}

	@Test
	void runWhenDefaultsDisabledThenAbsent() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthIndicator"));
	}

	@Test
	void runWhenActuatorMissingThenAbsent() {
		this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("ratelimitHealthIndicator");
		});
	}

	@Test
	void runWhenLimitingDisabledThenAbsent() {
		this.runner.withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("ratelimitHealthIndicator");
		});
	}

	@Test
	void healthWhenKeyTableOverMaximumThenApiKeysFrozenShownInHealthAndMetric() {
		this.runner.withPropertyValues("ratelimit.api-key.hash-secret=0123456789abcdef0123456789abcdef",
				"ratelimit.api-key.maximum-keys=2")
			.withBean(ApiKeySource.class, () -> (limit) -> List.of(key("a"), key("b"), key("c")).subList(0,
					Math.min(3, limit)))
			.run((context) -> {
				ReloadableApiKeys keys = context.getBean(ReloadableApiKeys.class);
				keys.reload();
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				new ApiKeyMeterBinder(keys, TimeSource.system()).bindTo(registry);

				Health health = health(context);

				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("degraded", true).containsEntry("apiKeysFrozen", true);
				assertThat(health.getDetails().get("apiKeys")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("overLimit", true)
					.containsEntry("maximumKeys", 2);
				assertThat(registry.find("ratelimit.api-keys.over-limit").gauge()).isNotNull()
					.satisfies((gauge) -> assertThat(gauge.value()).isEqualTo(1.0));
			});
	}

	private static ApiKey key(String name) {
		return new ApiKey(name.repeat(64).substring(0, 64), "principal-" + name, null, true);
	}

	@Configuration(proxyBeanMethods = false)
	static class SourceConfiguration {

		final AtomicBoolean down = new AtomicBoolean();

		SourceConfiguration(org.springframework.core.env.Environment environment) {
			this.down.set(environment.getProperty("test.source-down-at-start", Boolean.class, false));
		}

		@Bean
		PolicySource testPolicySource() {
			return () -> {
				if (this.down.get()) {
					throw new SQLException("Connection refused");
				}
				return List.of(new PolicyRow("d1", "default", null, BigDecimal.TEN, null),
						new PolicyRow("b1", "default", "acme", BigDecimal.valueOf(-1), null));
			};
		}

	}

}
