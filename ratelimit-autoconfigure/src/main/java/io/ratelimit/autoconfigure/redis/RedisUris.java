package io.ratelimit.autoconfigure.redis;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Where the Redis of the global buckets is, read as Spring Boot reads it: from the
 * application's connection details when Spring Boot made some (Spring Data Redis, service
 * connections), otherwise from the {@code spring.data.redis.*} properties. In Spring Boot's
 * order, Sentinel ({@code sentinel.master} and {@code sentinel.nodes}), then Cluster
 * ({@code cluster.nodes}), then a standalone server ({@code url}, or {@code host} and
 * {@code port}), each with {@code username} / {@code password}, and TLS from
 * {@code ssl.enabled}, {@code ssl.bundle} or a {@code rediss://} URL. A static
 * primary/replica list ({@code masterreplica.nodes}) is refused: nothing would follow a
 * new primary.
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

	static Target of(ConfigurableListableBeanFactory beans, Environment environment) {
		Settings settings = Binder.get(environment).bindOrCreate("spring.data.redis", Settings.class);
		if (connectionDetailsPresent(beans.getBeanClassLoader())) {
			Target fromDetails = ConnectionDetails.target(beans, settings);
			if (fromDetails != null) {
				return fromDetails;
			}
		}
		return of(settings, (name) -> sslBundle(beans, name));
	}

	private static SslBundle sslBundle(ListableBeanFactory beans, String name) {
		try {
			return beans.getBean(SslBundles.class).getBundle(name);
		}
		catch (RuntimeException ex) {
			throw new InvalidRateLimitPropertyException("spring.data.redis.ssl.bundle",
					"there is no SSL bundle named '" + name + "'; define it under spring.ssl.bundle.*", ex);
		}
	}

	/**
	 * Reads the properties alone.
	 * @param settings the {@code spring.data.redis.*} properties
	 * @param bundles the SSL bundle of a name
	 * @return where Redis is
	 */
	static Target of(Settings settings, Function<String, SslBundle> bundles) {
		Tls tls = Tls.of(settings, settings.getSsl().isEnabled() && StringUtils.hasLength(settings.getSsl().getBundle())
				? bundles.apply(settings.getSsl().getBundle()) : null);
		String url = settings.getUrl();
		Credentials credentials = StringUtils.hasText(url) ? Credentials.of(URI.create(url))
				: new Credentials(settings.getUsername(), settings.getPassword());
		if (settings.getSentinel() != null) {
			Settings.Sentinel sentinel = settings.getSentinel();
			if (!StringUtils.hasText(sentinel.getMaster())) {
				throw new InvalidRateLimitPropertyException("spring.data.redis.sentinel.master",
						"it must name the primary the sentinels watch");
			}
			int database = StringUtils.hasText(url) ? RedisURI.create(url).getDatabase() : settings.getDatabase();
			return sentinel(sentinel.getMaster(), nodes("spring.data.redis.sentinel.nodes", sentinel.getNodes()),
					database, credentials, new Credentials(sentinel.getUsername(), sentinel.getPassword()), tls);
		}
		if (settings.getCluster() != null) {
			return cluster(nodes("spring.data.redis.cluster.nodes", settings.getCluster().getNodes()), credentials,
					tls, settings.getCluster().getMaxRedirects());
		}
		if (settings.getMasterreplica() != null) {
			throw masterReplicaUnsupported();
		}
		if (StringUtils.hasText(url)) {
			RedisURI uri = RedisURI.create(url);
			uri.setSsl(uri.isSsl() || tls.enabled());
			return new Target(Topology.STANDALONE, List.of(uri), tls.bundle(), null);
		}
		return standalone(settings.getHost(), settings.getPort(), settings.getDatabase(), credentials, tls);
	}

	static Target standalone(String host, int port, int database, Credentials credentials, Tls tls) {
		RedisURI.Builder builder = RedisURI.builder()
			.withHost(host)
			.withPort(port)
			.withDatabase(database)
			.withSsl(tls.enabled());
		credentials.applyTo(builder);
		return new Target(Topology.STANDALONE, List.of(builder.build()), tls.bundle(), null);
	}

	/**
	 * One URI that names the sentinels: Lettuce asks them for the primary at every connect
	 * and reconnect, so a promoted replica is found without a restart. The sentinels have
	 * their own credentials ({@code spring.data.redis.sentinel.username} / {@code password});
	 * TLS applies to them and to the data nodes alike, as in Spring Data Redis.
	 */
	static Target sentinel(String master, List<Node> nodes, int database, Credentials credentials,
			Credentials sentinelCredentials, Tls tls) {
		RedisURI.Builder builder = RedisURI.builder();
		for (Node node : nodes) {
			RedisURI.Builder sentinel = RedisURI.builder().withHost(node.host()).withPort(node.port());
			sentinelCredentials.applyTo(sentinel);
			builder.withSentinel(sentinel.build());
		}
		builder.withSentinelMasterId(master).withDatabase(database);
		credentials.applyTo(builder);
		// After the sentinels: Lettuce applies it to those already added.
		builder.withSsl(tls.enabled());
		return new Target(Topology.SENTINEL, List.of(builder.build()), tls.bundle(), null);
	}

	/**
	 * One URI per node the cluster client starts from; it learns the rest of the cluster
	 * from them.
	 */
	static Target cluster(List<Node> nodes, Credentials credentials, Tls tls, @Nullable Integer maxRedirects) {
		List<RedisURI> uris = new ArrayList<>();
		for (Node node : nodes) {
			RedisURI.Builder builder = RedisURI.builder()
				.withHost(node.host())
				.withPort(node.port())
				.withSsl(tls.enabled());
			credentials.applyTo(builder);
			uris.add(builder.build());
		}
		return new Target(Topology.CLUSTER, List.copyOf(uris), tls.bundle(), maxRedirects);
	}

	private static List<Node> nodes(String property, @Nullable List<String> nodes) {
		if (nodes == null || nodes.isEmpty()) {
			throw new InvalidRateLimitPropertyException(property, "it must list at least one host:port");
		}
		return InvalidRateLimitPropertyException.check(property, () -> nodes.stream().map(Node::parse).toList());
	}

	private static InvalidRateLimitPropertyException masterReplicaUnsupported() {
		return new InvalidRateLimitPropertyException("spring.data.redis.masterreplica.nodes",
				"global buckets need a primary that is followed when it changes: use Redis Sentinel "
						+ "(spring.data.redis.sentinel.*), Redis Cluster (spring.data.redis.cluster.nodes) or the "
						+ "primary's address (spring.data.redis.url). A static primary/replica list is not followed "
						+ "after a failover. Set ratelimit.redis.enabled=false to keep every policy local");
	}

	/** The shape of the deployment, which decides the Lettuce client. */
	enum Topology {

		/** One server: a {@code RedisClient}. */
		STANDALONE,

		/** A primary that sentinels name: a {@code RedisClient} over a Sentinel URI. */
		SENTINEL,

		/** A cluster: a {@code RedisClusterClient}. */
		CLUSTER

	}

	/**
	 * Where Redis is.
	 *
	 * @param topology its shape
	 * @param uris one URI, or for a cluster the nodes to start from
	 * @param sslBundle the SSL bundle TLS connections trust and present, or {@code null}
	 * for the JVM's defaults
	 * @param maxRedirects the most cluster redirects followed per command, or {@code null}
	 * for Lettuce's default
	 */
	record Target(Topology topology, List<RedisURI> uris, @Nullable SslBundle sslBundle,
			@Nullable Integer maxRedirects) {
	}

	/**
	 * A {@code host:port} pair, parsed as Spring Boot parses its node lists.
	 *
	 * @param host the host
	 * @param port the port
	 */
	record Node(String host, int port) {

		static Node parse(String node) {
			int colon = node.lastIndexOf(':');
			if (colon <= 0 || colon == node.length() - 1) {
				throw new IllegalArgumentException("'" + node + "' is not host:port");
			}
			try {
				return new Node(node.substring(0, colon).trim(), Integer.parseInt(node.substring(colon + 1).trim()));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("'" + node + "' is not host:port", ex);
			}
		}

	}

	/**
	 * A user name and password, either of them optional.
	 *
	 * @param username the ACL user, or {@code null} for {@code default}
	 * @param password the password, or {@code null} for none
	 */
	record Credentials(@Nullable String username, @Nullable String password) {

		/** The user information of a {@code redis://user:password@host} URL, as Spring Boot reads it. */
		static Credentials of(URI url) {
			String userInfo = url.getUserInfo();
			if (userInfo == null) {
				return new Credentials(null, null);
			}
			int colon = userInfo.indexOf(':');
			return (colon == -1) ? new Credentials(null, userInfo)
					: new Credentials(userInfo.substring(0, colon), userInfo.substring(colon + 1));
		}

		void applyTo(RedisURI.Builder builder) {
			if (this.password == null) {
				return;
			}
			if (StringUtils.hasText(this.username)) {
				builder.withAuthentication(this.username, this.password.toCharArray());
			}
			else {
				builder.withPassword(this.password.toCharArray());
			}
		}

	}

	/**
	 * Whether to use TLS, and with which bundle.
	 *
	 * @param enabled whether connections use TLS
	 * @param bundle what they trust and present, or {@code null} for the JVM's defaults
	 */
	record Tls(boolean enabled, @Nullable SslBundle bundle) {

		/**
		 * As Spring Boot decides it: a bundle, {@code ssl.enabled}, or a {@code rediss://} URL.
		 */
		static Tls of(Settings settings, @Nullable SslBundle bundle) {
			String url = settings.getUrl();
			boolean secureUrl = StringUtils.hasText(url) && url.startsWith("rediss:");
			return new Tls(bundle != null || settings.getSsl().isEnabled() || secureUrl, bundle);
		}

	}

	/**
	 * Loaded only when {@code spring-boot-data-redis} is on the class path.
	 */
	static final class ConnectionDetails {

		private static final String PROPERTIES_DETAILS = "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

		private ConnectionDetails() {
		}

		static @Nullable Target target(ListableBeanFactory beans, Settings settings) {
			DataRedisConnectionDetails details = beans.getBeanProvider(DataRedisConnectionDetails.class)
				.getIfAvailable();
			if (details == null) {
				return null;
			}
			// Spring Boot's own details return the system default bundle for ssl.enabled
			// alone; a rediss:// URL turns TLS on beside them, as Spring Boot does.
			Tls tls = Tls.of(settings, details.getSslBundle());
			Credentials credentials = new Credentials(details.getUsername(), details.getPassword());
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			if (sentinel != null) {
				return sentinel(sentinel.getMaster(), nodes(sentinel.getNodes()), sentinel.getDatabase(), credentials,
						new Credentials(sentinel.getUsername(), sentinel.getPassword()), tls);
			}
			DataRedisConnectionDetails.Cluster cluster = details.getCluster();
			if (cluster != null) {
				Integer maxRedirects = (settings.getCluster() != null) ? settings.getCluster().getMaxRedirects() : null;
				return cluster(nodes(cluster.getNodes()), credentials, tls, maxRedirects);
			}
			if (details.getMasterReplica() != null) {
				throw masterReplicaUnsupported();
			}
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			return standalone(standalone.getHost(), standalone.getPort(), standalone.getDatabase(), credentials, tls);
		}

		private static List<Node> nodes(List<DataRedisConnectionDetails.Node> nodes) {
			return nodes.stream().map((node) -> new Node(node.host(), node.port())).toList();
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

		private @Nullable Sentinel sentinel;

		private @Nullable Cluster cluster;

		private @Nullable MasterReplica masterreplica;

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

		public @Nullable Sentinel getSentinel() {
			return this.sentinel;
		}

		public void setSentinel(@Nullable Sentinel sentinel) {
			this.sentinel = sentinel;
		}

		public @Nullable Cluster getCluster() {
			return this.cluster;
		}

		public void setCluster(@Nullable Cluster cluster) {
			this.cluster = cluster;
		}

		public @Nullable MasterReplica getMasterreplica() {
			return this.masterreplica;
		}

		public void setMasterreplica(@Nullable MasterReplica masterreplica) {
			this.masterreplica = masterreplica;
		}

		static class Ssl {

			/** Unset means "enabled if a bundle is named", as Spring Boot reads it. */
			private @Nullable Boolean enabled;

			private @Nullable String bundle;

			public boolean isEnabled() {
				return (this.enabled != null) ? this.enabled : StringUtils.hasLength(this.bundle);
			}

			public void setEnabled(@Nullable Boolean enabled) {
				this.enabled = enabled;
			}

			public @Nullable String getBundle() {
				return this.bundle;
			}

			public void setBundle(@Nullable String bundle) {
				this.bundle = bundle;
			}

		}

		static class Sentinel {

			private @Nullable String master;

			private @Nullable List<String> nodes;

			private @Nullable String username;

			private @Nullable String password;

			public @Nullable String getMaster() {
				return this.master;
			}

			public void setMaster(@Nullable String master) {
				this.master = master;
			}

			public @Nullable List<String> getNodes() {
				return this.nodes;
			}

			public void setNodes(@Nullable List<String> nodes) {
				this.nodes = nodes;
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

		}

		static class Cluster {

			private @Nullable List<String> nodes;

			private @Nullable Integer maxRedirects;

			public @Nullable List<String> getNodes() {
				return this.nodes;
			}

			public void setNodes(@Nullable List<String> nodes) {
				this.nodes = nodes;
			}

			public @Nullable Integer getMaxRedirects() {
				return this.maxRedirects;
			}

			public void setMaxRedirects(@Nullable Integer maxRedirects) {
				this.maxRedirects = maxRedirects;
			}

		}

		static class MasterReplica {

			private @Nullable List<String> nodes;

			public @Nullable List<String> getNodes() {
				return this.nodes;
			}

			public void setNodes(@Nullable List<String> nodes) {
				this.nodes = nodes;
			}

		}

	}

}
