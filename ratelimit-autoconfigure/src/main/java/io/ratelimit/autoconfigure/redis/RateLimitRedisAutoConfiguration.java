package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.GlobalPermitStore;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitProperties;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Buckets of global policies in Redis, when the application says where Redis is
 * ({@code spring.data.redis.*}, or a {@code DataRedisConnectionDetails} bean such as a
 * Testcontainers service connection) and Bucket4j's Lettuce module and Lettuce are on the
 * class path. Where Redis is comes from Spring Boot's Redis connection details, which
 * {@code spring-boot-starter-data-redis} brings; without them startup fails and says so.
 * Switched off with {@code ratelimit.redis.enabled=false}.
 * <p>
 * The limiter opens a Lettuce connection of its own rather than borrowing Spring Data
 * Redis's: its requests need their own short timeout ({@code ratelimit.redis.timeout}) and
 * must fail at once while disconnected, not queue behind the application's commands.
 * <p>
 * Redis may be a standalone server, a primary watched by Sentinel or a cluster, with TLS
 * and an ACL user, as the {@code spring.data.redis.*} settings say. Settings of the
 * application's own client, such as reads from replicas
 * ({@code spring.data.redis.lettuce.read-from} or a customizer), do not apply: a
 * compare-and-swap that starts from a replica's lagging copy of a bucket fails on the
 * primary and retries until the replica catches up.
 * <p>
 * Local policies keep their per-replica store: the Redis store is published as a
 * {@link GlobalBucketStore}, not as a second {@code BucketStore}. Requires
 * {@code ratelimit.key-secret}: replicas with different secrets would derive different
 * keys for the same client and never share a bucket.
 */
@AutoConfiguration(before = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ Bucket4jLettuce.class, RedisClient.class, RateLimiter.class })
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", matchIfMissing = true)
@Conditional(OnRedisSettingsCondition.class)
@EnableConfigurationProperties(RateLimitProperties.class)
public class RateLimitRedisAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitRedisAutoConfiguration.class);

	/** The longest startup waits for the Redis store to warm up. */
	private static final Duration WARM_UP_BUDGET = Duration.ofSeconds(3);

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedisGlobalBuckets rateLimitRedisGlobalBuckets(RateLimitProperties properties, Environment environment,
			ConfigurableListableBeanFactory beans) {
		if (properties.getKeySecret() == null || properties.getKeySecret().isBlank()) {
			throw new InvalidRateLimitPropertyException("ratelimit.key-secret",
					"it must be set, to the same value on every replica, when global policies use Redis; "
							+ "replicas with different secrets derive different keys and never share a bucket");
		}
		RateLimitProperties.Redis redis = properties.getRedis();
		Duration timeout = InvalidRateLimitPropertyException.check("ratelimit.redis.timeout",
				() -> positive(redis.getTimeout()));
		RedisTarget target = redisTarget(beans, environment);
		InvalidRateLimitPropertyException.check("ratelimit.redis.cooldown", () -> positive(redis.getCooldown()));
		if (environment.containsProperty("spring.data.redis.lettuce.read-from") && logger.isInfoEnabled()) {
			logger.info("Global rate-limit buckets are read and written on the Redis primary only: "
					+ "spring.data.redis.lettuce.read-from applies to the application's own connections");
		}
		LocalBucketStore local = LocalBucketStore.create(properties.getBuckets().getMaximumEntries());
		RedisBucketStore remote = new RedisBucketStore(RedisClients.connector(target, timeout), redis.getKeyPrefix(),
				timeout, properties.getBuckets().getMaximumEntries(), TimeSource.system());
		ExecutorService background = BatchedLeases.backgroundThreads();
		try {
			LeasedBucketStore leases = BatchedLeases.store(redis.getBatch(), remote, properties, background);
			// Connected and warm before the first request; never failing startup (Redis may be
			// down: then connecting fails at once and each request's failure mode decides).
			RedisTimeoutCheck.warnIfTooShort(timeout, redis.getBatch().getFlushInterval(),
					remote.connect(WARM_UP_BUDGET));
			Duration shutdownTimeout = InvalidRateLimitPropertyException.check(
					"ratelimit.redis.batch.shutdown-timeout", () -> positive(redis.getBatch().getShutdownTimeout()));
			return new RedisGlobalBuckets(remote, failover(remote, remote, redis, local), leases,
					failover(leases, remote, redis, local), background, shutdownTimeout);
		}
		catch (RuntimeException ex) {
			background.shutdownNow();
			remote.close();
			throw ex;
		}
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedisGlobalPermits rateLimitRedisGlobalPermits(RateLimitProperties properties, Environment environment,
			ConfigurableListableBeanFactory beans) {
		RateLimitProperties.Redis redis = properties.getRedis();
		Duration timeout = InvalidRateLimitPropertyException.check("ratelimit.redis.timeout",
				() -> positive(redis.getTimeout()));
		RedisTarget target = redisTarget(beans, environment);
		RedisPermitStore remote = InvalidRateLimitPropertyException.check("ratelimit.in-flight.permit-ttl",
				() -> new RedisPermitStore(RedisClients.connector(target, timeout), redis.getKeyPrefix(), timeout,
						properties.getInFlight().getPermitTtl()));
		try {
			// LOCAL failure mode: this replica's permits at the same limit, apart from the local limits' store.
			LocalPermitStore local = LocalPermitStore.create(properties.getInFlight().getMaximumKeys());
			FailoverPermitStore failover = InvalidRateLimitPropertyException.check(
					"ratelimit.redis.failure-threshold", () -> new FailoverPermitStore(remote, redis.getFailureMode(),
							local, redis.getFailureThreshold(), redis.getCooldown(), TimeSource.system()));
			// Connected before the first request, never failing startup (as the buckets' store).
			remote.connect();
			return new RedisGlobalPermits(remote, failover);
		}
		catch (RuntimeException ex) {
			remote.close();
			throw ex;
		}
	}

	@Bean
	@ConditionalOnMissingBean
	GlobalPermitStore rateLimitGlobalPermitStore(RedisGlobalPermits permits) {
		return new GlobalPermitStore(permits.failover());
	}

	@Bean
	@ConditionalOnMissingBean
	GlobalBucketStore rateLimitGlobalBucketStore(RedisGlobalBuckets buckets) {
		return new GlobalBucketStore(buckets.failover(), buckets.batchedFailover(), buckets.leases());
	}

	private static RedisTarget redisTarget(ConfigurableListableBeanFactory beans, Environment environment) {
		if (!ClassUtils.isPresent(OnRedisSettingsCondition.CONNECTION_DETAILS, beans.getBeanClassLoader())) {
			throw new InvalidRateLimitPropertyException("ratelimit.redis.enabled",
					"global buckets read where Redis is from Spring Boot's Redis connection details, which come "
							+ "with spring-boot-starter-data-redis: add it, or set ratelimit.redis.enabled=false to "
							+ "keep every policy local");
		}
		return RedisTarget.of(beans, environment);
	}

	private static FailoverBucketStore failover(BucketStore store, RedisBucketStore redis,
			RateLimitProperties.Redis properties, LocalBucketStore local) {
		// Redis's own answers, not the store's: leases and remembered refusals answer without it.
		return InvalidRateLimitPropertyException.check("ratelimit.redis.failure-threshold",
				() -> new FailoverBucketStore(store, redis, properties.getFailureMode(), local,
						properties.getFailureThreshold(), properties.getCooldown(), TimeSource.system()));
	}

	static Duration positive(@Nullable Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("must be positive, but was " + duration);
		}
		return duration;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class RedisMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisBucketStoreMetrics rateLimitRedisMetrics(RedisGlobalBuckets buckets) {
			return new RedisBucketStoreMetrics(buckets.failover(), buckets.batchedFailover(), buckets.leases(),
					buckets.redis());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("ratelimitRedis")
	static class RedisHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "ratelimitRedisHealthIndicator")
		RedisBucketStoreHealthIndicator ratelimitRedisHealthIndicator(RedisGlobalBuckets buckets) {
			return new RedisBucketStoreHealthIndicator(buckets.failover(), buckets.batchedFailover(), buckets.leases());
		}

	}

}
