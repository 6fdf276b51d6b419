package io.ratelimit.autoconfigure.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 requests written byte for byte on a plain socket, one connection each. Unlike
 * an HTTP client library, nothing on the client side parses, normalizes or re-encodes the
 * request target, so dot segments, doubled slashes and odd escapes reach the server as
 * written.
 */
public final class RawHttp {

	private static final int TIMEOUT_MILLIS = 10_000;

	private final int port;

	public RawHttp(int port) {
		this.port = port;
	}

	/**
	 * Sends one request and reads the whole response; {@code Connection: close} makes the
	 * end of the stream the end of the response.
	 * @param method the method, sent as is
	 * @param target the request target, sent as is (UTF-8 for anything beyond ASCII)
	 * @param headers further header lines as name, value pairs
	 * @return the status code of the response
	 */
	public int send(String method, String target, String... headers) {
		StringBuilder request = new StringBuilder().append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
		request.append("Host: 127.0.0.1:").append(this.port).append("\r\n");
		for (int i = 0; i < headers.length; i += 2) {
			request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
		}
		if (!method.equals("GET") && !method.equals("HEAD")) {
			request.append("Content-Length: 0\r\n");
		}
		request.append("Connection: close\r\n\r\n");
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), TIMEOUT_MILLIS);
			socket.setSoTimeout(TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return statusOf(readAll(socket.getInputStream()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Request '" + method + " " + target + "' failed", ex);
		}
	}

	private static String readAll(InputStream in) throws IOException {
		ByteArrayOutputStream response = new ByteArrayOutputStream();
		in.transferTo(response);
		return response.toString(StandardCharsets.ISO_8859_1);
	}

	private static int statusOf(String response) {
		// "HTTP/1.1 200 " or "HTTP/1.1 200" at the end of the status line
		if (!response.startsWith("HTTP/1.1 ") || response.length() < 12) {
			throw new IllegalStateException("Not an HTTP/1.1 response: '" + response.lines().findFirst().orElse("")
					+ "'");
		}
		return Integer.parseInt(response.substring(9, 12));
	}

}
