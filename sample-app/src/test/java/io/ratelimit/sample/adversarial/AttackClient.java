package io.ratelimit.sample.adversarial;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Real HTTP/1.1 requests to the application under test, over kept-alive connections.
 */
final class AttackClient {

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private final int port;

	AttackClient(int port) {
		this.port = port;
	}

	HttpResponse<String> send(String method, String path, @Nullable String jsonBody, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, (jsonBody != null) ? HttpRequest.BodyPublishers.ofString(jsonBody)
					: HttpRequest.BodyPublishers.noBody());
		if (jsonBody != null) {
			request.header("Content-Type", "application/json");
		}
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		try {
			return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(method + " " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	HttpResponse<String> get(String path, String... headers) {
		return send("GET", path, null, headers);
	}

	HttpResponse<String> login(String username, String password, String forwardedFor, String... headers) {
		String[] all = new String[headers.length + 2];
		all[0] = "X-Forwarded-For";
		all[1] = forwardedFor;
		System.arraycopy(headers, 0, all, 2, headers.length);
		return send("POST", "/api/login", "{\"username\":\"" + username + "\",\"password\":\"" + password + "\"}",
				all);
	}

}
