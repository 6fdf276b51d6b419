package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

/**
 * A Redis server of one test's own, on a free loopback port, that the test stops and
 * starts to play an outage: the locally installed {@code redis-server}, without
 * persistence. Tests that need one are skipped where it is not installed.
 */
public final class RedisServerProcess implements AutoCloseable {

	private final int port;

	private final Path pidFile;

	private RedisServerProcess(int port) throws IOException {
		this.port = port;
		this.pidFile = Files.createTempFile("ratelimit-redis-" + port, ".pid");
		Files.delete(this.pidFile);
	}

	/**
	 * Starts a server on a free port, or skips the test if {@code redis-server} is missing.
	 * @return the running server
	 * @throws Exception if it does not start
	 */
	public static RedisServerProcess start() throws Exception {
		Assumptions.assumeTrue(installed(), "redis-server is not installed");
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		RedisServerProcess server = new RedisServerProcess(port);
		server.resume();
		return server;
	}

	public int port() {
		return this.port;
	}

	public String url() {
		return "redis://127.0.0.1:" + this.port;
	}

	/**
	 * Starts the server again after {@link #stop()}, empty, on the same port.
	 * @throws Exception if it does not come up within five seconds
	 */
	public void resume() throws Exception {
		run("redis-server", "--port", String.valueOf(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
				"no", "--daemonize", "yes", "--pidfile", this.pidFile.toString());
		await(true);
	}

	/**
	 * Stops the server, as in an outage: connections are cut and new ones refused.
	 * @throws Exception if it is still listening after five seconds
	 */
	public void stop() throws Exception {
		run("redis-cli", "-p", String.valueOf(this.port), "shutdown", "nosave");
		await(false);
	}

	@Override
	public void close() throws Exception {
		if (listening()) {
			stop();
		}
	}

	private void await(boolean up) throws InterruptedException {
		Instant deadline = Instant.now().plus(Duration.ofSeconds(5));
		while (listening() != up) {
			if (Instant.now().isAfter(deadline)) {
				throw new IllegalStateException("Redis on port " + this.port + " did not " + (up ? "start" : "stop"));
			}
			Thread.sleep(20);
		}
	}

	private boolean listening() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean installed() {
		try {
			return new ProcessBuilder("redis-server", "--version").start().waitFor() == 0;
		}
		catch (IOException | InterruptedException ex) {
			return false;
		}
	}

	private static void run(String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		process.waitFor();
	}

}
