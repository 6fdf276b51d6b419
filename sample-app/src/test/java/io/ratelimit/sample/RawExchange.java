package io.ratelimit.sample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 exchanges written byte for byte on a plain socket from 127.0.0.1, one
 * connection each, so that header values the JDK's client refuses (control characters,
 * bytes above 0x7f, bare CR) reach the server as written. Header values are sent as
 * ISO-8859-1: each char below 256 becomes that byte.
 */
final class RawExchange {

	private static final int TIMEOUT_MILLIS = 10_000;

	private final int port;

	RawExchange(int port) {
		this.port = port;
	}

	/**
	 * Sends one request.
	 * @param method the method, sent as is
	 * @param target the request target, sent as is (ISO-8859-1)
	 * @param headers header lines as name, value pairs
	 * @param body the body, {@code null} for none
	 * @return the response
	 */
	Response send(String method, String target, List<String[]> headers, byte[] body) {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		write(request, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + this.port + "\r\n");
		for (String[] header : headers) {
			write(request, header[0] + ": " + header[1] + "\r\n");
		}
		if (body != null) {
			write(request, "Content-Length: " + body.length + "\r\n");
		}
		else if (!method.equals("GET") && !method.equals("HEAD")) {
			write(request, "Content-Length: 0\r\n");
		}
		write(request, "Connection: close\r\n\r\n");
		if (body != null) {
			request.writeBytes(body);
		}
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), TIMEOUT_MILLIS);
			socket.setSoTimeout(TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write(request.toByteArray());
			out.flush();
			// A value holding CR LF CR LF ends the head early; half-closing makes whatever
			// follows the last thing Tomcat reads, instead of a pipelined request it waits on.
			socket.shutdownOutput();
			return Response.parse(readAll(socket.getInputStream()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Request '" + escape(method + " " + target) + "' failed", ex);
		}
	}

	private static void write(ByteArrayOutputStream out, String text) {
		out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
	}

	private static byte[] readAll(InputStream in) throws IOException {
		ByteArrayOutputStream response = new ByteArrayOutputStream();
		try {
			in.transferTo(response);
		}
		catch (IOException ex) {
			// Tomcat may reset a connection it refused before the request was read in full;
			// whatever status line arrived before the reset is the answer.
			if (response.size() == 0) {
				throw ex;
			}
		}
		return response.toByteArray();
	}

	/**
	 * Renders text with everything outside printable ASCII as {@code \xNN} or
	 * {@code \\uNNNN}, for failure messages.
	 */
	static String escape(String text) {
		StringBuilder escaped = new StringBuilder();
		for (int i = 0; i < text.length() && i < 300; i++) {
			char c = text.charAt(i);
			if (c >= 0x20 && c < 0x7f) {
				escaped.append(c);
			}
			else if (c < 0x100) {
				escaped.append(String.format("\\x%02x", (int) c));
			}
			else {
				escaped.append(String.format("\\u%04x", (int) c));
			}
		}
		return (text.length() > 300) ? escaped + "...(" + text.length() + " chars)" : escaped.toString();
	}

	/**
	 * One response: status, header lines and the body, de-chunked.
	 */
	record Response(int status, List<String> headers, String body) {

		private static final Pattern SIMPLE_RESPONSE_STATUS = Pattern
			.compile("<title>HTTP Status (\\d{3})|^\\{\"timestamp\":\"[^\"]*\",\"status\":(\\d{3}),");

		static Response parse(byte[] bytes) {
			String raw = new String(bytes, StandardCharsets.ISO_8859_1);
			if (!raw.startsWith("HTTP/")) {
				return simpleResponse(raw);
			}
			int end = raw.indexOf("\r\n\r\n");
			if (!raw.startsWith("HTTP/1.1 ") || raw.length() < 12 || end < 0) {
				throw new IllegalStateException("Not an HTTP/1.1 response: '" + escape(raw) + "'");
			}
			List<String> lines = raw.substring(0, end).lines().toList();
			List<String> headers = new ArrayList<>(lines.subList(1, lines.size()));
			String body = raw.substring(end + 4);
			boolean chunked = headers.stream()
				.map((line) -> line.toLowerCase(Locale.ROOT))
				.anyMatch((line) -> line.startsWith("transfer-encoding:") && line.contains("chunked"));
			return new Response(Integer.parseInt(raw.substring(9, 12)), headers, chunked ? dechunk(body) : body);
		}

		/** The status of an HTTP/0.9 answer that is no error page: it has no status line. */
		static final int HTTP_0_9_OK = 9;

		/**
		 * A request line without a protocol is an HTTP/0.9 request, which Tomcat answers
		 * with a bare body: Tomcat's error page or Spring Boot's error JSON, both naming
		 * the status.
		 */
		private static Response simpleResponse(String raw) {
			if (raw.isEmpty()) {
				throw new IllegalStateException("No response");
			}
			Matcher status = SIMPLE_RESPONSE_STATUS.matcher(raw);
			if (!status.find()) {
				// A handler's own body: no error page, so no error.
				return new Response(HTTP_0_9_OK, List.of(), raw);
			}
			String code = (status.group(1) != null) ? status.group(1) : status.group(2);
			return new Response(Integer.parseInt(code), List.of(), raw);
		}

		private static String dechunk(String body) {
			StringBuilder content = new StringBuilder();
			int at = 0;
			while (true) {
				int lineEnd = body.indexOf("\r\n", at);
				if (lineEnd < 0) {
					return content.toString();
				}
				String size = body.substring(at, lineEnd);
				int extension = size.indexOf(';');
				int length = Integer.parseInt((extension >= 0) ? size.substring(0, extension).trim() : size.trim(), 16);
				if (length == 0) {
					return content.toString();
				}
				content.append(body, lineEnd + 2, Math.min(body.length(), lineEnd + 2 + length));
				at = lineEnd + 2 + length + 2;
			}
		}

		/** The headers and body as one text, the body decoded as UTF-8. */
		String text() {
			return String.join("\r\n", this.headers) + "\r\n\r\n"
					+ new String(this.body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
		}

	}

}
