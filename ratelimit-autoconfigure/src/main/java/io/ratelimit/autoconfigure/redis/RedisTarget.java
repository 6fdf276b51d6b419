package io.ratelimit.autoconfigure.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Where the Redis of the global buckets is, as Spring Boot's Redis connection details say:
 * from the {@code spring.data.redis.*} properties, or from a service connection
 * (Testcontainers, Docker Compose) or a {@code DataRedisConnectionDetails} bean of the
 * application's own that replaces them. The limiter reads what Spring Boot's own Lettuce
 * configuration reads, in its order (Sentinel, then Cluster, then a standalone server), so
 * the two clients never disagree about where Redis is or whether it speaks TLS: TLS when the
 * details carry an SSL bundle (which Spring Boot gives for {@code ssl.enabled=true} or a
 * named {@code ssl.bundle}) or the URL is {@code rediss://}. A static primary/replica list is
 * refused: nothing would follow a new primary.
 *
 * @param topology the shape of the deployment, which decides the Lettuce client
 * @param uris one URI, or for a cluster the nodes to start from
 * @param sslBundle what TLS connections trust and present, or {@code null} for the JVM's
 * defaults
 * @param maxRedirects the most cluster redirects followed per command, or {@code null} for
 * Lettuce's default
 */
record RedisTarget(Topology topology, List<RedisURI> uris, @Nullable SslBundle sslBundle,
		@Nullable Integer maxRedirects) {

	private static final String NODES = "it must list host:port pairs, separated by commas";

	/**
	 * Reads the application's connection details.
	 * @param beans the application's beans
	 * @param environment its environment, for the properties Spring Boot reads beside the
	 * details
	 * @return where Redis is
	 */
	static RedisTarget of(ListableBeanFactory beans, Environment environment) {
		DataRedisConnectionDetails details = beans.getBeanProvider(DataRedisConnectionDetails.class).getIfAvailable();
		if (details == null) {
			throw new InvalidRateLimitPropertyException("ratelimit.redis.enabled",
					"global buckets read where Redis is from Spring Boot's Redis connection details, and the "
							+ "application has none (is DataRedisAutoConfiguration excluded?); set "
							+ "ratelimit.redis.enabled=false to keep every policy local");
		}
		DataRedisProperties properties = beans.getBeanProvider(DataRedisProperties.class)
			.getIfAvailable(() -> Binder.get(environment).bindOrCreate("spring.data.redis", DataRedisProperties.class));
		return of(details, properties);
	}

	/**
	 * Reads connection details and the properties Spring Boot's Lettuce configuration reads
	 * beside them: a {@code rediss://} URL, the cluster's redirects.
	 * @param details where Redis is
	 * @param properties the {@code spring.data.redis.*} properties
	 * @return where Redis is
	 */
	static RedisTarget of(DataRedisConnectionDetails details, DataRedisProperties properties) {
		SslBundle bundle = read("spring.data.redis.ssl.bundle", "it must name a bundle under spring.ssl.bundle.*",
				details::getSslBundle);
		String url = properties.getUrl();
		boolean tls = bundle != null || (StringUtils.hasText(url) && url.startsWith("rediss:"));
		Credentials credentials = new Credentials(details.getUsername(), details.getPassword());
		DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
		if (sentinel != null) {
			String master = read("spring.data.redis.sentinel.master", "it must name the primary the sentinels watch",
					sentinel::getMaster);
			List<Node> nodes = nodes("spring.data.redis.sentinel.nodes", sentinel::getNodes);
			return sentinel(master, nodes, sentinel.getDatabase(), credentials,
					new Credentials(sentinel.getUsername(), sentinel.getPassword()), tls, bundle);
		}
		DataRedisConnectionDetails.Cluster cluster = read("spring.data.redis.cluster.nodes", NODES, details::getCluster);
		if (cluster != null) {
			Integer maxRedirects = (properties.getCluster() != null) ? properties.getCluster().getMaxRedirects() : null;
			return cluster(nodes("spring.data.redis.cluster.nodes", cluster::getNodes), credentials, tls, bundle,
					maxRedirects);
		}
		if (details.getMasterReplica() != null) {
			throw new InvalidRateLimitPropertyException("spring.data.redis.masterreplica.nodes",
					"global buckets need a primary that is followed when it changes: use Redis Sentinel "
							+ "(spring.data.redis.sentinel.*), Redis Cluster (spring.data.redis.cluster.nodes) or the "
							+ "primary's address (spring.data.redis.url). A static primary/replica list is not "
							+ "followed after a failover. Set ratelimit.redis.enabled=false to keep every policy local");
		}
		DataRedisConnectionDetails.Standalone standalone = read("spring.data.redis.url",
				"it must be a redis:// or rediss:// URL", details::getStandalone);
		if (standalone == null) {
			throw new InvalidRateLimitPropertyException("spring.data.redis.url",
					"the Redis connection details name no server, sentinel or cluster");
		}
		RedisURI.Builder builder = RedisURI.builder()
			.withHost(standalone.getHost())
			.withPort(standalone.getPort())
			.withDatabase(standalone.getDatabase())
			.withSsl(tls);
		credentials.applyTo(builder);
		return new RedisTarget(Topology.STANDALONE, List.of(builder.build()), bundle, null);
	}

	/**
	 * One URI that names the sentinels: Lettuce asks them for the primary at every connect
	 * and reconnect, so a promoted replica is found without a restart. The sentinels have
	 * their own credentials; TLS applies to them and to the data nodes alike, as in Spring
	 * Data Redis.
	 */
	static RedisTarget sentinel(String master, List<Node> nodes, int database, Credentials credentials,
			Credentials sentinelCredentials, boolean tls, @Nullable SslBundle bundle) {
		RedisURI.Builder builder = RedisURI.builder();
		for (Node node : nodes) {
			RedisURI.Builder sentinel = RedisURI.builder().withHost(node.host()).withPort(node.port());
			sentinelCredentials.applyTo(sentinel);
			builder.withSentinel(sentinel.build());
		}
		builder.withSentinelMasterId(master).withDatabase(database);
		credentials.applyTo(builder);
		// After the sentinels: Lettuce applies it to those already added.
		builder.withSsl(tls);
		return new RedisTarget(Topology.SENTINEL, List.of(builder.build()), bundle, null);
	}

	/**
	 * One URI per node the cluster client starts from; it learns the rest of the cluster
	 * from them.
	 */
	static RedisTarget cluster(List<Node> nodes, Credentials credentials, boolean tls, @Nullable SslBundle bundle,
			@Nullable Integer maxRedirects) {
		List<RedisURI> uris = new ArrayList<>();
		for (Node node : nodes) {
			RedisURI.Builder builder = RedisURI.builder().withHost(node.host()).withPort(node.port()).withSsl(tls);
			credentials.applyTo(builder);
			uris.add(builder.build());
		}
		return new RedisTarget(Topology.CLUSTER, List.copyOf(uris), bundle, maxRedirects);
	}

	/** Spring Boot parses node lists and finds bundles lazily: a bad value fails here. */
	private static <T> T read(String property, String reason, Supplier<T> value) {
		try {
			return value.get();
		}
		catch (RuntimeException ex) {
			throw new InvalidRateLimitPropertyException(property, reason + " (" + ex.getMessage() + ")", ex);
		}
	}

	private static List<Node> nodes(String property, Supplier<List<Node>> nodes) {
		List<Node> read = read(property, NODES, nodes);
		if (read == null || read.isEmpty()) {
			throw new InvalidRateLimitPropertyException(property, "it must list at least one host:port");
		}
		return read;
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
	 * A user name and password, either of them optional.
	 *
	 * @param username the ACL user, or {@code null} for {@code default}
	 * @param password the password, or {@code null} for none
	 */
	record Credentials(@Nullable String username, @Nullable String password) {

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

}
