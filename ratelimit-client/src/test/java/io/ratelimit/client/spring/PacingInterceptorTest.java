package io.ratelimit.client.spring;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.ratelimit.client.PacingTimeoutException;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;
import org.junit.jupiter.api.Test;

import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PacingInterceptor} in a {@code RestClient} over real HTTP against this project's
 * limiter ({@link RateLimitedServer}) on the system clock.
 */
class PacingInterceptorTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int BURST = 60;

	@Test
	void interceptWhenBurstFromSeveralThreadsThenAllSucceedWithFewRefusals() throws Exception {
		// 20 tokens refilled at 20/s: a client that fires the 60 requests at once has about
		// 40 refused. The pacer spreads them over the refill (about 2 s; 0 refusals measured
		// with the header-aware strategy), and the bound leaves room for responses that arrive
		// late on a loaded machine.
		try (RateLimitedServer server = RateLimitedServer.start("20", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
			RestClient client = restClient(server, pacer);
			ExecutorService threads = Executors.newFixedThreadPool(4);
			List<Future<String>> bodies = new ArrayList<>();
			for (int i = 0; i < BURST; i++) {
				int n = i;
				bodies.add(threads.submit(() -> client.get().uri("/api/items?n={n}", n).retrieve().body(String.class)));
			}
			for (Future<String> body : bodies) {
				assertThat(body.get(30, TimeUnit.SECONDS)).isEqualTo(RateLimitedServer.BODY);
			}
			threads.shutdown();

			assertThat(server.refused("GET")).as("429s at the server").isLessThanOrEqualTo(8);
			assertThat(server.received("GET")).as("each refused request sent again")
				.isEqualTo(BURST + server.refused("GET"));
		}
	}

	@Test
	void interceptWhenPostRefusedThenNotSentAgain() {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().build()) {
			RestClient client = restClient(server, pacer);
			emptyBucket(server);
			int sent = server.received("POST");

			ResponseEntity<String> response = post(client);

			assertThat(response.getStatusCode().value()).isEqualTo(429);
			assertThat(response.getHeaders().getFirst("Retry-After")).isNotNull();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent").isEqualTo(1);
		}
	}

	@Test
	void interceptWhenPostRefusedAndNonIdempotentRetriedThenSentAgain() {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().retryNonIdempotent(true).build()) {
			RestClient client = restClient(server, pacer);
			emptyBucket(server);
			int sent = server.received("POST");
			int refused = server.refused("POST");

			ResponseEntity<String> response = post(client);

			assertThat(response.getStatusCode().value()).isEqualTo(200);
			assertThat(response.getBody()).isEqualTo(RateLimitedServer.BODY);
			assertThat(server.refused("POST") - refused).as("POSTs of the paced client refused").isPositive();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent")
				.isEqualTo(server.refused("POST") - refused + 1);
		}
	}

	@Test
	void interceptWhenRetryAfterBeyondMaxWaitThenFailsAtOnceNamingTarget() {
		// One token refilled every 10 s: the second request is refused with Retry-After 10.
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofMillis(200)).build()) {
			RestClient client = restClient(server, pacer);
			assertThat(client.get().uri("/api/items").retrieve().body(String.class)).isEqualTo(RateLimitedServer.BODY);
			long start = System.nanoTime();

			assertThatExceptionOfType(PacingTimeoutException.class)
				.isThrownBy(() -> client.get().uri("/api/items").retrieve().body(String.class))
				.withMessageContaining("GET /api/items on " + server.host());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	/** Takes the one token of the server's bucket for POST, without pacing. */
	private static void emptyBucket(RateLimitedServer server) {
		RestClient unpaced = RestClient.builder()
			.requestFactory(requestFactory())
			.baseUrl("http://" + server.host())
			.build();
		while (post(unpaced).getStatusCode().value() != 429) {
			// At most one token is left: the next one is refused.
		}
	}

	private static ResponseEntity<String> post(RestClient client) {
		// The response as it is, a 429 included, rather than an exception for it.
		return client.post()
			.uri("/api/orders")
			.body("{\"item\":1}")
			.exchange((request, response) -> ResponseEntity.status(response.getStatusCode())
				.headers(response.getHeaders())
				.body(new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8)));
	}

	private static RestClient restClient(RateLimitedServer server, RequestPacer pacer) {
		return RestClient.builder()
			.requestFactory(requestFactory())
			.baseUrl("http://" + server.host())
			.requestInterceptor(new PacingInterceptor(pacer))
			.build();
	}

	private static JdkClientHttpRequestFactory requestFactory() {
		JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build());
		factory.setReadTimeout(TIMEOUT);
		return factory;
	}

}
