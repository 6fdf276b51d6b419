package io.ratelimit.autoconfigure.redis;

import java.util.Map;

import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The Redis server of the global buckets, from the application's connection details when
 * Spring Boot made some (Spring Data Redis, service connections), otherwise from the
 * {@code spring.data.redis.*} properties. A standalone server only, for now.
 * <p>
 * Spring Boot 4 keeps its Redis types in {@code spring-boot-data-redis}, which brings
 * Spring Data Redis; the limiter needs neither, so it reads the properties itself and looks
 * for connection details only when that module is there.
 */
final class RedisUris {

	static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private RedisUris() {
	}

	static boolean connectionDetailsPresent(@Nullable ClassLoader classLoader) {
		return ClassUtils.isPresent(CONNECTION_DETAILS, classLoader);
	}

	static RedisURI of(ConfigurableListableBeanFactory beans, Environment environment) {
		if (connectionDetailsPresent(beans.getBeanClassLoader())) {
			RedisURI fromDetails = ConnectionDetails.uri(beans);
			if (fromDetails != null) {
				return fromDetails;
			}
		}
		return of(Binder.get(environment).bindOrCreate("spring.data.redis", Settings.class));
	}

	static RedisURI of(Settings properties) {
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

	/**
	 * Loaded only when {@code spring-boot-data-redis} is on the class path.
	 */
	static final class ConnectionDetails {

		private static final String PROPERTIES_DETAILS = "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

		private ConnectionDetails() {
		}

		static @Nullable RedisURI uri(ListableBeanFactory beans) {
			DataRedisConnectionDetails details = beans.getBeanProvider(DataRedisConnectionDetails.class)
				.getIfAvailable();
			if (details == null) {
				return null;
			}
			if (details.getSentinel() != null || details.getCluster() != null) {
				throw unsupported();
			}
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			RedisURI.Builder builder = RedisURI.builder()
				.withHost(standalone.getHost())
				.withPort(standalone.getPort())
				.withDatabase(standalone.getDatabase())
				.withSsl(details.getSslBundle() != null);
			credentials(builder, details.getUsername(), details.getPassword());
			return builder.build();
		}

		/**
		 * Whether connection details other than Spring Boot's own, which only mirror the
		 * {@code spring.data.redis.*} properties, say where Redis is (a service connection,
		 * for one). Spring Data Redis registers the mirror even when nothing is set.
		 */
		static boolean anyBeyondProperties(ListableBeanFactory beans) {
			for (String name : beans.getBeanNamesForType(DataRedisConnectionDetails.class, true, false)) {
				Class<?> type = beans.getType(name, false);
				if (type == null || !PROPERTIES_DETAILS.equals(type.getName())) {
					return true;
				}
			}
			return false;
		}

	}

	/**
	 * The {@code spring.data.redis.*} settings the limiter reads, with Spring Boot's defaults.
	 */
	static class Settings {

		private @Nullable String url;

		private String host = "localhost";

		private int port = 6379;

		private int database;

		private @Nullable String username;

		private @Nullable String password;

		private final Ssl ssl = new Ssl();

		private @Nullable Map<String, Object> sentinel;

		private @Nullable Map<String, Object> cluster;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public String getHost() {
			return this.host;
		}

		public void setHost(String host) {
			this.host = host;
		}

		public int getPort() {
			return this.port;
		}

		public void setPort(int port) {
			this.port = port;
		}

		public int getDatabase() {
			return this.database;
		}

		public void setDatabase(int database) {
			this.database = database;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public Ssl getSsl() {
			return this.ssl;
		}

		public @Nullable Map<String, Object> getSentinel() {
			return this.sentinel;
		}

		public void setSentinel(@Nullable Map<String, Object> sentinel) {
			this.sentinel = sentinel;
		}

		public @Nullable Map<String, Object> getCluster() {
			return this.cluster;
		}

		public void setCluster(@Nullable Map<String, Object> cluster) {
			this.cluster = cluster;
		}

		static class Ssl {

			private boolean enabled;

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

}
