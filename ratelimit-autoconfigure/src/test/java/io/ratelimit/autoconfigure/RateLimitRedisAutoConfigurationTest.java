package io.ratelimit.autoconfigure;

import java.util.UUID;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.ratelimit.autoconfigure.redis.FailoverBucketStore;
import io.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.concurrency.PermitStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each condition of the Redis auto-configuration. No Redis is needed: nothing listens on
 * the port given, and a refused connection does not hold up startup.
 */
class RateLimitRedisAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
				RateLimitDataAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.jpa.open-in-view=false");

	@Test
	void runWhenNoRedisSettingsThenGlobalPoliciesUseLocalStore() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(GlobalBucketStore.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			assertThat(limiter.globalBuckets()).isSameAs(limiter.buckets());
		});
	}

	@Test
	void runWhenRedisSettingsAndSecretThenGlobalStoreInRedisAndLocalStoreKept() {
		this.runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-secret=" + secret())
			.run((context) -> {
				assertThat(context).hasSingleBean(GlobalBucketStore.class);
				assertThat(context).hasSingleBean(BucketStore.class);
				assertThat(context).getBean(BucketStore.class).isInstanceOf(LocalBucketStore.class);
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.buckets()).isInstanceOf(LocalBucketStore.class);
				assertThat(limiter.globalBuckets()).isInstanceOf(FailoverBucketStore.class)
					.isSameAs(context.getBean(GlobalBucketStore.class).store());
			});
	}

	@Test
	void runWhenRedisSettingsAndSecretThenGlobalPermitsInRedisAndLocalPermitStoreKept() {
		this.runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-secret=" + secret())
			.run((context) -> {
				assertThat(context).hasSingleBean(PermitStore.class);
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.permits()).isInstanceOf(LocalPermitStore.class)
					.isSameAs(context.getBean(PermitStore.class));
				assertThat(limiter.globalPermits()).isSameAs(context.getBean(GlobalPermitStore.class).store())
					.isNotInstanceOf(LocalPermitStore.class);
			});
	}

	@Test
	void runWhenSpringDataRedisWithoutSettingsThenGlobalPoliciesUseLocalStore() {
		// Spring Data Redis registers connection details mirroring its defaults: not a setting.
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(DataRedisConnectionDetails.class);
			assertThat(context).doesNotHaveBean(GlobalBucketStore.class);
		});
	}

	@Test
	void runWhenConnectionDetailsOfItsOwnAndSecretThenGlobalStoreInRedis() {
		this.runner.withPropertyValues("ratelimit.key-secret=" + secret())
			.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of("127.0.0.1", 1);
				}

			})
			.run((context) -> assertThat(context).hasSingleBean(GlobalBucketStore.class));
	}

	@Test
	void runWhenSpringBootDataRedisMissingThenRefusesToStartNamingTheStarter() {
		this.runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-secret=" + secret())
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis",
					"org.springframework.data.redis"))
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("spring-boot-starter-data-redis")
					.contains("ratelimit.redis.enabled=false");
			});
	}

	@Test
	void runWhenSpringBootRedisConfigurationExcludedThenRefusesToStartSayingSo() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitDataAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-secret=" + secret())
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("DataRedisAutoConfiguration excluded"));
	}

	@Test
	void runWhenOnlyBundleNamedThenTheBundleMustExistAsForSpringBoot() {
		this.runner
			.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "spring.data.redis.ssl.bundle=missing",
					"ratelimit.key-secret=" + secret())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("SSL bundle name has been set but no SSL bundles found"));
	}

	@Test
	void runWhenSentinelSettingsAndSecretThenGlobalStoreInRedis() {
		this.runner
			.withPropertyValues("spring.data.redis.sentinel.master=primary",
					"spring.data.redis.sentinel.nodes=127.0.0.1:1,127.0.0.1:2", "ratelimit.key-secret=" + secret())
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(GlobalBucketStore.class));
	}

	@Test
	void runWhenClusterSettingsAndSecretThenGlobalStoreInRedis() {
		this.runner
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:1,127.0.0.1:2",
					"ratelimit.key-secret=" + secret())
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(GlobalBucketStore.class));
	}

	@Test
	void runWhenMasterReplicaSettingsThenRefusesToStartNamingTheProperty() {
		this.runner
			.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:1,127.0.0.1:2",
					"ratelimit.key-secret=" + secret())
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("spring.data.redis.masterreplica.nodes")
					.contains("Sentinel");
				assertThat(analysis.getAction()).contains("spring.data.redis.masterreplica.nodes");
			});
	}

	@Test
	void runWhenRedisSettingsWithoutSecretThenRefusesToStartNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1").run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			FailureAnalysis analysis = analyze(failure);
			assertThat(analysis.getDescription()).contains("ratelimit.key-secret").contains("every replica");
			assertThat(analysis.getAction()).contains("ratelimit.key-secret");
		});
	}

	@Test
	void runWhenRedisDisabledThenNoGlobalStore() {
		this.runner
			.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.redis.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(GlobalBucketStore.class));
	}

	@Test
	void runWhenBucket4jLettuceMissingThenNoGlobalStore() {
		this.runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1")
			.withClassLoader(new FilteredClassLoader(Bucket4jLettuce.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(GlobalBucketStore.class));
	}

	@Test
	void runWhenCooldownNotPositiveThenRefusesToStartNamingTheProperty() {
		this.runner
			.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-secret=" + secret(),
					"ratelimit.redis.cooldown=0s")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("ratelimit.redis.cooldown"));
	}

	private static String secret() {
		return "0123456789abcdef0123456789abcdef";
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new InvalidRateLimitPropertyFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
		return analysis;
	}

}
