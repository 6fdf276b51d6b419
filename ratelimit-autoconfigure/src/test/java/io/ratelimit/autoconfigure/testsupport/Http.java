package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Real HTTP requests to the application under test, with the path sent as written.
 */
public final class Http {

	private static final HttpClient CLIENT = HttpClient.newHttpClient();

	private final int port;

	public Http(int port) {
		this.port = port;
	}

	public HttpResponse<String> send(String method, String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return send(request.build());
	}

	/**
	 * Sends a request built by the caller, with whatever body and headers it has.
	 * @param request the request
	 * @return the response, its body as text
	 */
	public static HttpResponse<String> send(HttpRequest request) {
		try {
			return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public HttpResponse<String> get(String path, String... headers) {
		return send("GET", path, headers);
	}

}
