package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

/**
 * A standalone Redis of a test's own that its clients reach over TLS only, with a
 * throwaway certificate authority and server certificate (for {@code 127.0.0.1} and
 * {@code localhost}) made by the {@code openssl} command line, everything in a temporary
 * directory deleted on {@link #close()}. The server does not ask clients for certificates.
 * {@link RedisProcess#cli(String...)} talks to it on a plain port of its own. Tests that
 * need it are skipped where {@code redis-server} or {@code openssl} is missing.
 */
public final class RedisTlsServer implements AutoCloseable {

	private final Path directory;

	private final RedisProcess process;

	private RedisTlsServer(Path directory, RedisProcess process) {
		this.directory = directory;
		this.process = process;
	}

	/**
	 * Makes a certificate authority and a server certificate, then starts the server.
	 * @param serverArguments more arguments for the server, such as {@code --user} rules
	 * @return the running server; close it
	 * @throws Exception if it does not start
	 */
	public static RedisTlsServer start(String... serverArguments) throws Exception {
		RedisProcess.assumeInstalled();
		Assumptions.assumeTrue(RedisProcess.run(List.of("openssl", "version")).startsWith("OpenSSL"),
				"openssl is not installed");
		Path directory = RedisProcess.newDirectory("tls");
		try {
			certificates(directory);
			int tlsPort = RedisProcess.freePort();
			int plainPort = RedisProcess.freePort();
			List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(plainPort), "--tls-port",
					String.valueOf(tlsPort), "--bind", "127.0.0.1", "--tls-cert-file", "server.crt", "--tls-key-file",
					"server.key", "--tls-ca-cert-file", "ca.crt", "--tls-auth-clients", "no", "--save", "",
					"--appendonly", "no"));
			arguments.addAll(List.of(serverArguments));
			return new RedisTlsServer(directory, RedisProcess.start(tlsPort, plainPort, directory, arguments));
		}
		catch (Exception | Error ex) {
			RedisProcess.deleteDirectory(directory);
			throw ex;
		}
	}

	/**
	 * Returns the port of TLS connections.
	 * @return the port
	 */
	public int tlsPort() {
		return this.process.port();
	}

	/**
	 * Returns the certificate of the authority that signed the server's, in PEM.
	 * @return the file
	 */
	public Path caCertificate() {
		return this.directory.resolve("ca.crt");
	}

	public RedisProcess process() {
		return this.process;
	}

	@Override
	public void close() {
		this.process.close();
		RedisProcess.deleteDirectory(this.directory);
	}

	private static void certificates(Path directory) throws IOException {
		Files.writeString(directory.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		openssl(directory, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
				"-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=ratelimit test CA");
		openssl(directory, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
				"server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
		openssl(directory, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
				"-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext");
	}

	private static void openssl(Path directory, String... arguments) throws IOException {
		List<String> command = new ArrayList<>();
		command.add("openssl");
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		try {
			if (process.waitFor() != 0) {
				throw new IOException(String.join(" ", command) + " failed: " + output);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

}
