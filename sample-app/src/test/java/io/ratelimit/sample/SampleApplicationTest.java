package io.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as the quick start runs it: on its embedded database, with the seeded
 * policies and demo keys, over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureMetrics
class SampleApplicationTest {

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
		String body = "{}";
		if (headers.length % 2 == 1) {
			body = headers[0];
			headers = Arrays.copyOfRange(headers, 1, headers.length);
		}
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "application/json");
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void reportsWhenSecondWithinTenSecondsThenRejectedByTheSeededPolicy() throws Exception {
		HttpResponse<String> first = send("GET", "/api/reports/7");
		HttpResponse<String> second = send("GET", "/api/reports/7");

		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/reports/*\";q=10;w=10");
		assertThat(second.statusCode()).isEqualTo(429);
		assertThat(second.headers().firstValue("Retry-After")).hasValue("10");
		assertThat(second.headers().firstValue("Content-Type")).hasValue("application/problem+json");
	}

	@Test
	void productsWhenAcmeKeyThenTenantPolicyElseGlobal() throws Exception {
		HttpResponse<String> acme = send("GET", "/api/products", "X-API-Key", "demo-acme-key-0001");
		HttpResponse<String> globex = send("GET", "/api/products", "X-API-Key", "demo-globex-key-0001");
		HttpResponse<String> revoked = send("GET", "/api/products", "X-API-Key", "demo-revoked-key-0001");

		assertThat(acme.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/products\";q=200;w=2");
		assertThat(globex.headers().firstValue("RateLimit-Policy")).hasValue("\"GET /api/products\";q=40;w=2");
		// A revoked key is limited as the caller's address, in the address's bucket.
		assertThat(revoked.headers().firstValue("RateLimit")).hasValue("\"GET /api/products\";r=39;t=1");
	}

	@Test
	void productsWhenBearerTokenFromLoginThenTokenSubjectHasItsOwnBucket() throws Exception {
		HttpResponse<String> login = send("POST", "/api/login", "{\"username\":\"alice\",\"password\":\"wonderland\"}");
		String token = login.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");

		long started = System.nanoTime();
		HttpResponse<String> withToken = send("GET", "/api/products/1", "Authorization", "Bearer " + token);
		HttpResponse<String> again = send("GET", "/api/products/1", "Authorization", "Bearer " + token);
		HttpResponse<String> anonymous = send("GET", "/api/products/1");

		assertThat(login.statusCode()).isEqualTo(200);
		assertThat(withToken.headers().firstValue("RateLimit")).hasValue("\"default\";r=19;t=1");
		assertSecondRequestOfOneBucket(again, started);
		// The address's own bucket was untouched by alice's requests.
		assertThat(anonymous.headers().firstValue("RateLimit")).hasValue("\"default\";r=19;t=1");
	}

	@Test
	void productsWhenTokenBadlySignedThenLimitedWithTheCallersAddress() throws Exception {
		String forged = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5IiwicHJvamVjdF9pZCI6ImFjbWUifQ."
				+ "c2lnbmF0dXJlLW5vdC12YWxpZA";
		long started = System.nanoTime();
		HttpResponse<String> first = send("GET", "/api/orders/1/items", "Authorization", "Bearer " + forged);
		HttpResponse<String> second = send("GET", "/api/orders/1/items");

		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit")).hasValue("\"default\";r=19;t=1");
		assertSecondRequestOfOneBucket(second, started);
	}

	/**
	 * The second request charged to a full default bucket (20 tokens, 10 a second) leaves
	 * 18, plus what refilled since the first: one token a tenth of a second, never more
	 * than 19. A bucket of its own would show 19 whatever the time, so the check tells the
	 * two apart whenever the requests come within a tenth of a second, as they do unless
	 * the machine is very busy.
	 */
	private static void assertSecondRequestOfOneBucket(HttpResponse<String> second, long startedNanos) {
		long refilled = (System.nanoTime() - startedNanos) / 100_000_000L;
		String field = second.headers().firstValue("RateLimit").orElseThrow();
		assertThat(field).startsWith("\"default\";r=").endsWith(";t=1");
		int remaining = Integer.parseInt(field.replaceAll(".*;r=(\\d+);.*", "$1"));
		assertThat(remaining).isBetween(18, (int) Math.min(19, 18 + refilled));
	}

	@Test
	void actuatorWhenNotAdminThenRefused() throws Exception {
		assertThat(send("GET", "/actuator/prometheus").statusCode()).isEqualTo(401);
		String admin = Base64.getEncoder().encodeToString("admin:change-me".getBytes(StandardCharsets.UTF_8));
		assertThat(send("GET", "/actuator/prometheus", "Authorization", "Basic " + admin).statusCode()).isEqualTo(200);
		assertThat(send("GET", "/actuator/health").statusCode()).isEqualTo(200);
	}

	@Test
	void ordersWhenPostedThenEachCostsFiveTokens() throws Exception {
		HttpResponse<String> order = send("POST", "/api/orders", "X-API-Key", "demo-globex-key-0001");

		assertThat(order.statusCode()).isEqualTo(201);
		assertThat(order.headers().firstValue("RateLimit")).hasValue("\"POST /api/orders\";r=15;t=1");
	}

}
