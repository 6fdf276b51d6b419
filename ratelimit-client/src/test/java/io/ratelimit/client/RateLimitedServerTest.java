package io.ratelimit.client;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;

import io.ratelimit.client.RateLimitedServer.Fields;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test server answers as this project's limiter does, so that what the client
 * integrations are tested against is what they meet in production.
 */
class RateLimitedServerTest {

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@Test
	void startWhenBucketEmptiedThenRefusesWithFieldsAndCountsPerMethod() throws Exception {
		// Two tokens refilled every 10 s: the third request in a row is refused.
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "20")) {
			HttpResponse<String> first = get(server, "/api/items?n=1");
			get(server, "/api/items?n=2");
			HttpResponse<String> refused = get(server, "/api/items?n=3");

			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.body()).isEqualTo(RateLimitedServer.BODY);
			assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=2;w=20");
			assertThat(first.headers().firstValue("RateLimit"))
				.hasValueSatisfying((value) -> assertThat(value).startsWith("\"default\";r=1;"));
			assertThat(first.headers().firstValue("Retry-After")).isEmpty();
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After"))
				.hasValueSatisfying((value) -> assertThat(Integer.parseInt(value)).isBetween(1, 10));
			assertThat(server.received("GET")).isEqualTo(3);
			assertThat(server.refused("GET")).isEqualTo(1);
			assertThat(server.received("POST")).isZero();
			assertThat(server.arrivals()).containsExactly("/api/items?n=1", "/api/items?n=2", "/api/items?n=3");
		}
	}

	@Test
	void startWhenWithoutFieldsThenRefusesBare() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "1", Fields.NONE)) {
			HttpResponse<String> first = get(server, "/api/items");
			HttpResponse<String> refused = get(server, "/api/items");

			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().firstValue("RateLimit")).isEmpty();
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().map()).doesNotContainKeys("retry-after", "ratelimit", "ratelimit-policy");
		}
	}

	private HttpResponse<String> get(RateLimitedServer server, String pathAndQuery) throws Exception {
		return this.client.send(HttpRequest.newBuilder(server.uri(pathAndQuery)).build(), BodyHandlers.ofString());
	}

}
