package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * The limiter's own Lettuce client for a {@link RedisTarget}: short timeouts, commands
 * refused at once while disconnected, reconnection within a second. Nothing of the
 * application's Redis client configuration applies, on purpose: in particular a
 * {@code ReadFrom} (reads from replicas) would start each compare-and-swap from a copy of
 * the bucket that lags the primary, where the swap fails and is tried again until the
 * replica catches up, so decisions of hot keys would retry until they time out. The
 * limiter always reads and writes on the primary.
 */
final class RedisClients {

	/**
	 * How soon a cluster client may look at the topology again after a sign that it changed
	 * (a redirect, a node that keeps refusing connections): a promoted replica is found
	 * within about a second of the cluster promoting it.
	 */
	private static final Duration ADAPTIVE_REFRESH_INTERVAL = Duration.ofSeconds(1);

	/** How often a cluster client reads the topology regardless. */
	private static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);

	private RedisClients() {
	}

	/**
	 * Builds the client for Redis where {@code target} says.
	 * @param target where Redis is
	 * @param timeout the longest wait to connect and for each command
	 * @return the connector over a new client; shut it down when done
	 */
	// Lettuce 7 (Spring Boot 4.1) enables every adaptive refresh trigger by default and
	// deprecates enabling them; Lettuce 6.8 (Spring Boot 4.0) enables none unless asked.
	@SuppressWarnings("deprecation")
	static RedisConnector connector(RedisTarget target, Duration timeout) {
		for (RedisURI uri : target.uris()) {
			uri.setTimeout(timeout);
			uri.getSentinels().forEach((sentinel) -> sentinel.setTimeout(timeout));
		}
		ClientResources resources = resources();
		if (target.topology() == RedisTarget.Topology.CLUSTER) {
			RedisClusterClient client = RedisClusterClient.create(resources, target.uris());
			ClusterClientOptions.Builder options = ClusterClientOptions.builder()
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_INTERVAL)
					.enablePeriodicRefresh(PERIODIC_REFRESH)
					.build());
			if (target.maxRedirects() != null) {
				options.maxRedirects(target.maxRedirects());
			}
			common(options, timeout, target.sslBundle());
			client.setOptions(options.build());
			return RedisConnector.of(client);
		}
		RedisClient client = RedisClient.create(resources, target.uris().get(0));
		ClientOptions.Builder options = ClientOptions.builder();
		common(options, timeout, target.sslBundle());
		client.setOptions(options.build());
		return RedisConnector.of(client);
	}

	private static ClientResources resources() {
		// Reconnect soon after Redis returns: the default back-off grows to 30 seconds.
		return ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
	}

	private static void common(ClientOptions.Builder options, Duration timeout, @Nullable SslBundle sslBundle) {
		options.autoReconnect(true);
		// Fail at once while disconnected instead of queueing until the timeout.
		options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
		options.socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
		options.timeoutOptions(TimeoutOptions.enabled(timeout));
		if (sslBundle != null) {
			options.sslOptions(sslOptions(sslBundle));
		}
	}

	/** What Spring Boot applies of a bundle to its own Lettuce client, applied the same way. */
	private static SslOptions sslOptions(SslBundle bundle) {
		SslOptions.Builder ssl = SslOptions.builder()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		if (bundle.getOptions().getCiphers() != null) {
			ssl.cipherSuites(bundle.getOptions().getCiphers());
		}
		if (bundle.getOptions().getEnabledProtocols() != null) {
			ssl.protocols(bundle.getOptions().getEnabledProtocols());
		}
		return ssl.build();
	}

}
