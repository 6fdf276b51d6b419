package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * One {@code redis-server} (or sentinel) process of a test's own, a child of the test JVM
 * on a loopback port, so that a test can kill it as a crash does ({@code SIGKILL}) and
 * start it again with the same arguments and working directory. Used by
 * {@link RedisSentinelSetup}, {@link RedisClusterSetup} and {@link RedisTlsServer}; tests that
 * need one are skipped where {@code redis-server} is not installed.
 */
public final class RedisProcess implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(5);

	private final int port;

	private final Path directory;

	private final List<String> arguments;

	private final int cliPort;

	private @Nullable Process process;

	private RedisProcess(int port, int cliPort, Path directory, List<String> arguments) {
		this.port = port;
		this.cliPort = cliPort;
		this.directory = directory;
		this.arguments = arguments;
	}

	/**
	 * Starts {@code redis-server} with the arguments given, in {@code directory}, and waits
	 * until it listens on {@code port}.
	 * @param port the port it listens on
	 * @param directory its working directory, which must exist
	 * @param arguments its arguments after the program name
	 * @return the running process
	 * @throws IOException if it does not start
	 */
	public static RedisProcess start(int port, Path directory, List<String> arguments) throws IOException {
		return start(port, port, directory, arguments);
	}

	/**
	 * Starts {@code redis-server} as {@link #start(int, Path, List)} does, for a server whose
	 * clients use one port (TLS) and {@link #cli(String...)} another (plain).
	 * @param port the port it listens on for the tests' clients
	 * @param cliPort the port {@code redis-cli} uses
	 * @param directory its working directory, which must exist
	 * @param arguments its arguments after the program name
	 * @return the running process
	 * @throws IOException if it does not start
	 */
	public static RedisProcess start(int port, int cliPort, Path directory, List<String> arguments)
			throws IOException {
		RedisProcess redis = new RedisProcess(port, cliPort, directory, List.copyOf(arguments));
		redis.restart();
		return redis;
	}

	/**
	 * Skips the calling test unless {@code redis-server} and {@code redis-cli} are installed.
	 */
	public static void assumeInstalled() {
		Assumptions.assumeTrue(runs("redis-server", "--version") && runs("redis-cli", "--version"),
				"redis-server and redis-cli are not installed");
	}

	/**
	 * Returns a port nothing listens on now.
	 * @return the port
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Returns a new temporary directory, deleted with {@link #deleteDirectory(Path)}.
	 * @param name a hint for its name
	 * @return the directory
	 */
	public static Path newDirectory(String name) {
		try {
			return Files.createTempDirectory("ratelimit-" + name);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Deletes a directory and everything in it, quietly.
	 * @param directory the directory
	 */
	public static void deleteDirectory(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// Already gone, or a temporary directory the system cleans up anyway.
		}
	}

	public int port() {
		return this.port;
	}

	/**
	 * Starts the process again, with the same arguments and directory, after {@link #kill()}.
	 * @throws IOException if it does not start listening within five seconds
	 */
	public void restart() throws IOException {
		List<String> command = new ArrayList<>();
		command.add("redis-server");
		command.addAll(this.arguments);
		this.process = new ProcessBuilder(command).directory(this.directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("redis-" + this.port + ".log").toFile()))
			.start();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (!listening()) {
			if (!this.process.isAlive() || System.nanoTime() - deadline > 0) {
				this.process.destroyForcibly();
				throw new IOException("redis-server on port " + this.port + " did not start: " + log());
			}
			sleep(Duration.ofMillis(10));
		}
	}

	/**
	 * Kills the process as a crash does: no shutdown, nothing saved, connections cut.
	 */
	public void kill() {
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			try {
				current.waitFor(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.process = null;
		}
	}

	/**
	 * Returns whether the process runs.
	 * @return whether it is alive
	 */
	public boolean alive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * Runs {@code redis-cli} against this process and returns what it printed.
	 * @param arguments the command and its arguments, after any connection options
	 * @return the output, trimmed
	 */
	public String cli(String... arguments) {
		List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p",
				String.valueOf(this.cliPort)));
		command.addAll(List.of(arguments));
		return run(command);
	}

	@Override
	public void close() {
		kill();
	}

	/**
	 * Runs a command to its end and returns its output.
	 * @param command the program and its arguments
	 * @return what it printed, standard error included, trimmed
	 */
	public static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " did not finish");
			}
			return new String(output, StandardCharsets.UTF_8).trim();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
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

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis-" + this.port + ".log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private static boolean runs(String... command) {
		try {
			return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start()
				.waitFor() == 0;
		}
		catch (IOException | InterruptedException ex) {
			return false;
		}
	}

}
