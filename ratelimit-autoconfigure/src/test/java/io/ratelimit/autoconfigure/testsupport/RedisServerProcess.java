package io.ratelimit.autoconfigure.testsupport;

import java.nio.file.Path;
import java.util.List;

/**
 * A Redis server of one test's own, on a free loopback port, that the test stops and
 * starts to play an outage: the locally installed {@code redis-server}, without
 * persistence, run by {@link RedisProcess}. Tests that need one are skipped where it is not
 * installed.
 */
public final class RedisServerProcess implements AutoCloseable {

	private final RedisProcess process;

	private final Path directory;

	private RedisServerProcess(RedisProcess process, Path directory) {
		this.process = process;
		this.directory = directory;
	}

	/**
	 * Starts a server on a free port, or skips the test if {@code redis-server} is missing.
	 * @return the running server
	 * @throws Exception if it does not start
	 */
	public static RedisServerProcess start() throws Exception {
		RedisProcess.assumeInstalled();
		int port = RedisProcess.freePort();
		Path directory = RedisProcess.newDirectory("redis-" + port);
		try {
			return new RedisServerProcess(RedisProcess.start(port, directory, List.of("--port", String.valueOf(port),
					"--bind", "127.0.0.1", "--save", "", "--appendonly", "no")), directory);
		}
		catch (Exception ex) {
			RedisProcess.deleteDirectory(directory);
			throw ex;
		}
	}

	public int port() {
		return this.process.port();
	}

	public String url() {
		return "redis://127.0.0.1:" + port();
	}

	/**
	 * Runs {@code redis-cli} against this server.
	 * @param arguments the command and its arguments
	 * @return what it printed, trimmed
	 */
	public String cli(String... arguments) {
		return this.process.cli(arguments);
	}

	/**
	 * Starts the server again after {@link #stop()}, empty, on the same port.
	 * @throws Exception if it does not come up within five seconds
	 */
	public void resume() throws Exception {
		this.process.restart();
	}

	/**
	 * Stops the server, as in an outage: connections are cut and new ones refused.
	 */
	public void stop() {
		this.process.kill();
	}

	@Override
	public void close() {
		this.process.close();
		RedisProcess.deleteDirectory(this.directory);
	}

}
