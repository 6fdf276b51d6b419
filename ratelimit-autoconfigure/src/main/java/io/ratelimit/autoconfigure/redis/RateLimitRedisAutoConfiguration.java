package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitProperties;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
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

/**
 * Buckets of global policies in Redis, when the application has Redis connection settings
 * ({@code spring.data.redis.*}, or a {@code DataRedisConnectionDetails} bean such as a
 * Testcontainers service connection) and Bucket4j's Lettuce module and Lettuce on the
 * class path. Switched off with {@code ratelimit.redis.enabled=false}.
 * <p>
 * The limiter opens a Lettuce connection of its own rather than borrowing Spring Data
 * Redis's: its requests need their own short timeout ({@code ratelimit.redis.timeout}) and
 * must fail at once while disconnected, not queue behind the application's commands, and
 * the starter then needs no Spring Data Redis at all.
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
		RedisURI uri = RedisUris.of(beans, environment);
		uri.setTimeout(timeout);
		InvalidRateLimitPropertyException.check("ratelimit.redis.cooldown", () -> positive(redis.getCooldown()));
		LocalBucketStore local = LocalBucketStore.create(properties.getBuckets().getMaximumEntries());
		RedisBucketStore remote = new RedisBucketStore(client(uri, timeout), redis.getKeyPrefix(), timeout,
				properties.getBuckets().getMaximumEntries(), TimeSource.system());
		ExecutorService background = BatchedLeases.backgroundThreads();
		try {
			LeasedBucketStore leases = BatchedLeases.store(redis.getBatch(), remote, properties, background);
			// Connected and warm before the first request; never failing startup (Redis may be
			// down: then connecting fails at once and each request's failure mode decides).
			remote.connect(WARM_UP_BUDGET);
			return new RedisGlobalBuckets(remote, failover(remote, redis, local), leases,
					failover(leases, redis, local), background);
		}
		catch (RuntimeException ex) {
			background.shutdownNow();
			remote.close();
			throw ex;
		}
	}

	@Bean
	@ConditionalOnMissingBean
	GlobalBucketStore rateLimitGlobalBucketStore(RedisGlobalBuckets buckets) {
		return new GlobalBucketStore(buckets.failover(), buckets.batchedFailover(), buckets.leases());
	}

	private static FailoverBucketStore failover(BucketStore remote, RateLimitProperties.Redis redis,
			LocalBucketStore local) {
		return InvalidRateLimitPropertyException.check("ratelimit.redis.failure-threshold",
				() -> new FailoverBucketStore(remote, redis.getFailureMode(), local, redis.getFailureThreshold(),
						redis.getCooldown(), TimeSource.system()));
	}

	private static RedisClient client(RedisURI uri, Duration timeout) {
		// Reconnect soon after Redis returns: the default back-off grows to 30 seconds.
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
					java.util.concurrent.TimeUnit.MILLISECONDS))
			.build();
		RedisClient client = RedisClient.create(resources, uri);
		client.setOptions(ClientOptions.builder()
			.autoReconnect(true)
			// Fail at once while disconnected instead of queueing until the timeout.
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
			.timeoutOptions(TimeoutOptions.enabled(timeout))
			.build());
		return client;
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
			return new RedisBucketStoreMetrics(buckets.failover(), buckets.batchedFailover(), buckets.leases());
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
