package io.ratelimit.autoconfigure.redis;

import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.util.StringUtils;

/**
 * The Redis server of the global buckets, from the application's connection details when
 * Spring Boot made some (Spring Data Redis, service connections), otherwise from the
 * {@code spring.data.redis.*} properties. A standalone server only, for now.
 */
final class RedisUris {

	private RedisUris() {
	}

	static RedisURI of(@Nullable RedisConnectionDetails details, RedisProperties properties) {
		if (details != null) {
			return fromDetails(details);
		}
		if (properties.getSentinel() != null || properties.getCluster() != null) {
			throw unsupported();
		}
		if (StringUtils.hasText(properties.getUrl())) {
			return RedisURI.create(properties.getUrl());
		}
		RedisURI.Builder builder = RedisURI.builder()
			.withHost(properties.getHost())
			.withPort(properties.getPort())
			.withDatabase(properties.getDatabase())
			.withSsl(properties.getSsl().isEnabled());
		credentials(builder, properties.getUsername(), properties.getPassword());
		return builder.build();
	}

	private static RedisURI fromDetails(RedisConnectionDetails details) {
		if (details.getSentinel() != null || details.getCluster() != null) {
			throw unsupported();
		}
		RedisConnectionDetails.Standalone standalone = details.getStandalone();
		RedisURI.Builder builder = RedisURI.builder()
			.withHost(standalone.getHost())
			.withPort(standalone.getPort())
			.withDatabase(standalone.getDatabase())
			.withSsl(standalone.getSslBundle() != null);
		credentials(builder, details.getUsername(), details.getPassword());
		return builder.build();
	}

	private static void credentials(RedisURI.Builder builder, @Nullable String username, @Nullable String password) {
		if (password == null) {
			return;
		}
		if (StringUtils.hasText(username)) {
			builder.withAuthentication(username, password);
		}
		else {
			builder.withPassword(password.toCharArray());
		}
	}

	private static InvalidRateLimitPropertyException unsupported() {
		return new InvalidRateLimitPropertyException("ratelimit.redis.enabled",
				"global buckets need a standalone Redis (spring.data.redis.url or spring.data.redis.host); "
						+ "Redis Sentinel and Cluster are not supported yet. Set ratelimit.redis.enabled=false to "
						+ "keep every policy local");
	}

}
