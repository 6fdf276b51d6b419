package io.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as the quick start runs it: on its embedded database, with the seeded
 * policies and demo keys, over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTest {

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.ofString("{}"))
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
	void ordersWhenPostedThenEachCostsFiveTokens() throws Exception {
		HttpResponse<String> order = send("POST", "/api/orders", "X-API-Key", "demo-globex-key-0001");

		assertThat(order.statusCode()).isEqualTo(201);
		assertThat(order.headers().firstValue("RateLimit")).hasValue("\"POST /api/orders\";r=15;t=1");
	}

}
