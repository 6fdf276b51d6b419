package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A primary, its replica and three sentinels that watch them, of a test's own on free
 * loopback ports: {@code redis-server} processes, the sentinels run as
 * {@code redis-server <conf> --sentinel}, everything in a temporary directory deleted on
 * {@link #close()}. The sentinels know each other and the replica from their configuration,
 * so the setup is ready as soon as the replica has synchronised (well under a second); they
 * call a primary down after {@value #DOWN_AFTER_MILLIS} ms without an answer and agree on it
 * two out of three, so a killed primary is replaced in about two and a half seconds.
 */
public final class RedisSentinelSetup implements AutoCloseable {

	/** The name the sentinels know the primary by ({@code spring.data.redis.sentinel.master}). */
	public static final String MASTER = "ratelimit-primary";

	private static final int DOWN_AFTER_MILLIS = 500;

	private final Path directory;

	private final List<RedisProcess> servers = new ArrayList<>();

	private final List<RedisProcess> sentinels = new ArrayList<>();

	private RedisSentinelSetup(Path directory) {
		this.directory = directory;
	}

	/**
	 * Starts a primary, a replica and three sentinels, or skips the test if
	 * {@code redis-server} is missing.
	 * @return the running setup; close it
	 * @throws Exception if it does not come up
	 */
	public static RedisSentinelSetup start() throws Exception {
		RedisProcess.assumeInstalled();
		RedisSentinelSetup setup = new RedisSentinelSetup(RedisProcess.newDirectory("sentinel"));
		try {
			setup.startServers();
			setup.startSentinels();
			setup.awaitReplicated();
			return setup;
		}
		catch (Exception | Error ex) {
			setup.close();
			throw ex;
		}
	}

	/**
	 * Returns the sentinels, as {@code spring.data.redis.sentinel.nodes} lists them.
	 * @return {@code 127.0.0.1:port} of each sentinel
	 */
	public List<String> sentinelNodes() {
		return this.sentinels.stream().map((sentinel) -> "127.0.0.1:" + sentinel.port()).toList();
	}

	/**
	 * Returns the server the sentinels name as the primary now.
	 * @return the primary
	 */
	public RedisProcess primary() {
		int port = primaryPort();
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The sentinels name an unknown primary on " + port));
	}

	/**
	 * Returns the port of the primary, as the first sentinel that answers names it.
	 * @return the port
	 */
	public int primaryPort() {
		for (RedisProcess sentinel : this.sentinels) {
			if (sentinel.alive()) {
				String[] address = sentinel.cli("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER).split("\\s+");
				if (address.length == 2) {
					return Integer.parseInt(address[1]);
				}
			}
		}
		throw new IllegalStateException("No sentinel names a primary");
	}

	/**
	 * Waits until the replicas hold everything the primary acknowledged, so that a test
	 * knows what a failover may lose.
	 */
	public void awaitReplicated() {
		RedisProcess primary = primary();
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (true) {
			long written = offset(primary.cli("INFO", "replication"), "master_repl_offset:");
			boolean caughtUp = this.servers.stream()
				.filter((server) -> server != primary && server.alive())
				.allMatch((replica) -> caughtUp(replica.cli("INFO", "replication"), written));
			if (caughtUp) {
				return;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The replica did not catch up with the primary");
			}
			RedisProcess.sleep(Duration.ofMillis(10));
		}
	}

	/**
	 * Waits until the sentinels name a primary other than the one on {@code port}.
	 * @param port the port of the old primary
	 * @param timeout the longest wait
	 * @return the new primary
	 */
	public RedisProcess awaitPrimaryOtherThan(int port, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (primaryPort() == port) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("No failover within " + timeout);
			}
			RedisProcess.sleep(Duration.ofMillis(20));
		}
		return primary();
	}

	@Override
	public void close() {
		this.sentinels.forEach(RedisProcess::close);
		this.servers.forEach(RedisProcess::close);
		RedisProcess.deleteDirectory(this.directory);
	}

	private void startServers() throws IOException {
		int primary = RedisProcess.freePort();
		int replica = RedisProcess.freePort();
		this.servers.add(RedisProcess.start(primary, this.directory, server(primary)));
		List<String> replicaArguments = new ArrayList<>(server(replica));
		replicaArguments.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(primary)));
		this.servers.add(RedisProcess.start(replica, this.directory, replicaArguments));
	}

	private static List<String> server(int port) {
		// A full synchronisation waits 5 s by default for more replicas to share it.
		return List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
				"--repl-diskless-sync-delay", "0", "--dbfilename", "dump-" + port + ".rdb");
	}

	private void startSentinels() throws IOException {
		int primary = this.servers.get(0).port();
		int replica = this.servers.get(1).port();
		int[] ports = { RedisProcess.freePort(), RedisProcess.freePort(), RedisProcess.freePort() };
		for (int i = 0; i < ports.length; i++) {
			List<String> conf = new ArrayList<>(List.of("port " + ports[i], "bind 127.0.0.1", "dir " + this.directory,
					"sentinel myid " + id(i), "sentinel monitor " + MASTER + " 127.0.0.1 " + primary + " 2",
					"sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MILLIS,
					"sentinel failover-timeout " + MASTER + " 2000",
					"sentinel known-replica " + MASTER + " 127.0.0.1 " + replica));
			for (int other = 0; other < ports.length; other++) {
				if (other != i) {
					conf.add("sentinel known-sentinel " + MASTER + " 127.0.0.1 " + ports[other] + " " + id(other));
				}
			}
			// Sentinels rewrite their configuration, so each has a file of its own.
			Path file = this.directory.resolve("sentinel-" + ports[i] + ".conf");
			Files.write(file, conf);
			this.sentinels.add(RedisProcess.start(ports[i], this.directory, List.of(file.toString(), "--sentinel")));
		}
	}

	private static String id(int sentinel) {
		return String.format("%040x", sentinel + 1);
	}

	private static boolean caughtUp(String replicaInfo, long written) {
		return replicaInfo.contains("master_link_status:up") && offset(replicaInfo, "slave_repl_offset:") >= written;
	}

	private static long offset(String info, String field) {
		for (String line : info.split("\\R")) {
			if (line.startsWith(field)) {
				return Long.parseLong(line.substring(field.length()).trim());
			}
		}
		return -1;
	}

}
