package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;

/**
 * A Redis Cluster of three primaries of a test's own on free loopback ports:
 * {@code redis-server --cluster-enabled yes} processes joined with
 * {@code redis-cli --cluster create}, each in a directory of its own under a temporary
 * directory deleted on {@link #close()}. Each node keeps an append-only file, so a node
 * killed and started again comes back with its slots and its data (every write acknowledged
 * before the kill had reached the file). Nodes call a peer failing after
 * {@value #NODE_TIMEOUT_MILLIS} ms without an answer. Ready in about two seconds.
 */
public final class RedisClusterSetup implements AutoCloseable {

	private static final int NODE_TIMEOUT_MILLIS = 1000;

	private final Path directory;

	private final List<RedisProcess> nodes = new ArrayList<>();

	private RedisClusterSetup(Path directory) {
		this.directory = directory;
	}

	/**
	 * Starts three nodes and makes a cluster of them, or skips the test if
	 * {@code redis-server} is missing.
	 * @param nodeArguments more arguments for every node, such as {@code --user} rules
	 * @return the running cluster; close it
	 * @throws Exception if it does not come up
	 */
	public static RedisClusterSetup start(String... nodeArguments) throws Exception {
		RedisProcess.assumeInstalled();
		RedisClusterSetup cluster = new RedisClusterSetup(RedisProcess.newDirectory("cluster"));
		try {
			for (int i = 0; i < 3; i++) {
				int port = RedisProcess.freePort();
				Path node = Files.createDirectory(cluster.directory.resolve("node-" + port));
				List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1",
						"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout",
						String.valueOf(NODE_TIMEOUT_MILLIS), "--save", "", "--appendonly", "yes"));
				arguments.addAll(List.of(nodeArguments));
				cluster.nodes.add(RedisProcess.start(port, node, arguments));
			}
			List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
			cluster.nodes().forEach(create::add);
			create.add("--cluster-yes");
			String output = RedisProcess.run(create);
			if (!output.contains("All 16384 slots covered")) {
				throw new IOException("redis-cli --cluster create failed: " + output);
			}
			cluster.awaitHealthy(Duration.ofSeconds(10));
			return cluster;
		}
		catch (Exception | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Returns the nodes, as {@code spring.data.redis.cluster.nodes} lists them.
	 * @return {@code 127.0.0.1:port} of each node
	 */
	public List<String> nodes() {
		return this.nodes.stream().map((node) -> "127.0.0.1:" + node.port()).toList();
	}

	/**
	 * Returns the node processes.
	 * @return the nodes, in the order they were started
	 */
	public List<RedisProcess> processes() {
		return List.copyOf(this.nodes);
	}

	/**
	 * Returns the node that serves a key.
	 * @param key the key
	 * @return the node that owns its slot
	 */
	public RedisProcess nodeOf(byte[] key) {
		int slot = SlotHash.getSlot(key);
		RedisProcess any = this.nodes.stream().filter(RedisProcess::alive).findFirst().orElseThrow();
		for (String line : any.cli("CLUSTER", "NODES").split("\\R")) {
			// <id> <ip:port@cport> <flags> <primary> <ping> <pong> <epoch> <state> <slot ranges...>
			String[] fields = line.split(" ");
			for (int i = 8; i < fields.length; i++) {
				String[] range = fields[i].split("-");
				int from = Integer.parseInt(range[0]);
				int to = (range.length == 2) ? Integer.parseInt(range[1]) : from;
				if (slot >= from && slot <= to) {
					int port = Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@')));
					return this.nodes.stream().filter((node) -> node.port() == port).findFirst().orElseThrow();
				}
			}
		}
		throw new IllegalStateException("No node serves slot " + slot);
	}

	/**
	 * Waits until every running node says the cluster is ok.
	 * @param timeout the longest wait
	 */
	public void awaitHealthy(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!this.nodes.stream().allMatch((node) -> node.cli("CLUSTER", "INFO").contains("cluster_state:ok"))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The cluster is not ok after " + timeout);
			}
			RedisProcess.sleep(Duration.ofMillis(20));
		}
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisProcess::close);
		RedisProcess.deleteDirectory(this.directory);
	}

}
