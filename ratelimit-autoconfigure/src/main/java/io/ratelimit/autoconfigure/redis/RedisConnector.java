package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * How a {@link RedisBucketStore} reaches Redis: connects, and hands Bucket4j's
 * compare-and-swap builder over the connection. A {@link RedisClient} serves a standalone
 * server and a Sentinel-managed primary (its URI names the sentinels, and Lettuce asks them
 * where the primary is at every connect and reconnect); a {@link RedisClusterClient} serves
 * a cluster, routing each key to the node that owns its slot.
 * <p>
 * A cluster needs nothing more from the store: each of Bucket4j's scripts names one key
 * ({@code KEYS[1]}), so a compare-and-swap always runs on the single node that owns that
 * key's slot.
 */
interface RedisConnector {

	/**
	 * Opens a connection.
	 * @return the connection and Bucket4j's builder over it
	 * @throws RuntimeException if Redis cannot be reached
	 */
	Connection connect();

	/**
	 * Returns the client; whoever owns this connector shuts it down with {@link #shutdown()}.
	 * @return the client
	 */
	AbstractRedisClient client();

	/**
	 * Shuts the client and its resources down, connections included.
	 */
	default void shutdown() {
		AbstractRedisClient client = client();
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		client.getResources().shutdown(0, 2, TimeUnit.SECONDS);
	}

	/**
	 * Returns a connector over a standalone server, or a primary that Sentinel names.
	 * @param client the client; its URI says which
	 * @return the connector
	 */
	static RedisConnector of(RedisClient client) {
		Objects.requireNonNull(client, "client must not be null");
		return new RedisConnector() {

			@Override
			public Connection connect() {
				StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
				return new Connection(connection, Bucket4jLettuce.casBasedBuilder(connection), connection.async());
			}

			@Override
			public AbstractRedisClient client() {
				return client;
			}

		};
	}

	/**
	 * Returns a connector over a cluster.
	 * @param client the client; its URIs are the nodes it starts from
	 * @return the connector
	 */
	static RedisConnector of(RedisClusterClient client) {
		Objects.requireNonNull(client, "client must not be null");
		return new RedisConnector() {

			@Override
			public Connection connect() {
				StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
				connectToEveryPrimary(connection);
				return new Connection(connection, Bucket4jLettuce.casBasedBuilder(connection), connection.async());
			}

			@Override
			public AbstractRedisClient client() {
				return client;
			}

		};
	}

	/**
	 * Opens the connection to every primary now, all at once, and waits for them at most
	 * the command timeout. The cluster client opens a node's connection on the first
	 * command routed to that node, and that command waits for the connect and the handshake
	 * (the credentials of an ACL user included) within its own timeout: the first requests
	 * on each node could fall to the failure mode, on a busy host or a far one. A node that
	 * cannot be reached now is left to the first command routed to it, as before.
	 */
	private static void connectToEveryPrimary(StatefulRedisClusterConnection<byte[], byte[]> connection) {
		List<CompletableFuture<?>> opening = new ArrayList<>();
		for (RedisClusterNode node : connection.getPartitions()) {
			if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
				RedisURI uri = node.getUri();
				try {
					// By host and port, as slots are routed: a node id would open a connection of its own.
					opening.add(connection.getConnectionAsync(uri.getHost(), uri.getPort()));
				}
				catch (RuntimeException ex) {
					// The first command to that node tries again.
				}
			}
		}
		try {
			CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new))
				.get(connection.getTimeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// The first command to a node not connected yet tries again.
		}
	}

	/**
	 * An open connection, Bucket4j's builder over it, and its scripting commands.
	 *
	 * @param connection the connection, closed with the store
	 * @param builder Bucket4j's compare-and-swap builder over it
	 * @param scripts the connection's scripting commands, for the store's own
	 * compare-and-swap ({@link StateSwap})
	 */
	record Connection(StatefulConnection<byte[], byte[]> connection,
			Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> builder,
			RedisScriptingAsyncCommands<byte[], byte[]> scripts) {
	}

}
