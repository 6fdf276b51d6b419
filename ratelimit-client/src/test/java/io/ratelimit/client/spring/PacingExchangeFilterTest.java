package io.ratelimit.client.spring;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.ratelimit.client.GatedStrategy;
import io.ratelimit.client.PacingTimeoutException;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PacingExchangeFilter} in a {@code WebClient} over real HTTP (the JDK connector)
 * against this project's limiter ({@link RateLimitedServer}) on the system clock.
 */
class PacingExchangeFilterTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int BURST = 60;

	private static final int CALLERS = 4;

	@Test
	void filterWhenBurstThenAllSucceedWithFewRefusals() {
		// 20 tokens refilled at 20/s: a client that fires the 60 requests at once has about
		// 40 refused. The pacer spreads them over the refill (about 2 s; 0 refusals measured
		// with the header-aware strategy), and the bound leaves room for responses that arrive
		// late on a loaded machine. Four callers at a time, as in the tests of the blocking
		// clients: the strategy does not count the requests in flight, so with all 60 in line
		// at once every request sent within a slow round trip reads the same stale count.
		try (RateLimitedServer server = RateLimitedServer.start("20", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
			WebClient client = webClient(server, pacer);

			List<String> bodies = Flux.range(0, BURST)
				.flatMap((i) -> client.get().uri("/api/items?n={n}", i).retrieve().bodyToMono(String.class), CALLERS)
				.collectList()
				.block(Duration.ofSeconds(30));

			assertThat(bodies).hasSize(BURST).containsOnly(RateLimitedServer.BODY);
			assertThat(server.refused("GET")).as("429s at the server").isLessThanOrEqualTo(8);
			assertThat(server.received("GET")).as("each refused request sent again")
				.isEqualTo(BURST + server.refused("GET"));
		}
	}

	@Test
	void filterWhenPermitsComeOneByOneThenRequestsLeaveInOrderOfSubscription() throws Exception {
		// Under a real strategy, permits can come microseconds apart and the requests race to
		// the server; a gate that opens once per arrival makes the order of the line visible.
		GatedStrategy gate = new GatedStrategy();
		try (RateLimitedServer server = RateLimitedServer.start("100", "1");
				RequestPacer pacer = RequestPacer.builder().strategy(gate).build()) {
			WebClient client = webClient(server, pacer);
			List<CompletableFuture<ResponseEntity<String>>> responses = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				responses.add(client.get().uri("/api/items?n={n}", i).retrieve().toEntity(String.class).toFuture());
			}
			for (int i = 1; i <= 10; i++) {
				gate.open(1);
				server.awaitArrivals(i, TIMEOUT);
			}

			assertThat(server.arrivals())
				.containsExactlyElementsOf(IntStream.range(0, 10).mapToObj((i) -> "/api/items?n=" + i).toList());
			for (CompletableFuture<ResponseEntity<String>> response : responses) {
				assertThat(response.get(10, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
			}
		}
	}

	@Test
	void filterWhenPostRefusedThenNotSentAgain() {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().build()) {
			WebClient client = webClient(server, pacer);
			emptyBucket(server);
			int sent = server.received("POST");

			ResponseEntity<String> response = post(client);

			assertThat(response.getStatusCode().value()).isEqualTo(429);
			assertThat(response.getHeaders().getFirst("Retry-After")).isNotNull();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent").isEqualTo(1);
		}
	}

	@Test
	void filterWhenPostRefusedAndNonIdempotentRetriedThenSentAgain() {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().retryNonIdempotent(true).build()) {
			WebClient client = webClient(server, pacer);
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
	void filterWhenRetryAfterBeyondMaxWaitThenFailsAtOnceNamingTarget() {
		// One token refilled every 10 s: the second request is refused with Retry-After 10.
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofMillis(200)).build()) {
			WebClient client = webClient(server, pacer);
			assertThat(client.get().uri("/api/items").retrieve().bodyToMono(String.class).block(TIMEOUT))
				.isEqualTo(RateLimitedServer.BODY);
			long start = System.nanoTime();

			assertThatExceptionOfType(PacingTimeoutException.class)
				.isThrownBy(() -> client.get().uri("/api/items").retrieve().bodyToMono(String.class).block(TIMEOUT))
				.withMessageContaining("GET /api/items on " + server.host());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	@Test
	void filterWhenDisposedWhileWaitingThenLeavesTheLine() throws Exception {
		GatedStrategy gate = new GatedStrategy();
		try (RateLimitedServer server = RateLimitedServer.start("100", "1");
				RequestPacer pacer = RequestPacer.builder().strategy(gate).build()) {
			WebClient client = webClient(server, pacer);
			Disposable disposed = client.get().uri("/api/items?n=disposed").retrieve().toEntity(String.class).subscribe();
			gate.awaitAsks(1, TIMEOUT);
			CompletableFuture<ResponseEntity<String>> later = client.get()
				.uri("/api/items?n=later")
				.retrieve()
				.toEntity(String.class)
				.toFuture();

			disposed.dispose();
			gate.open(1);

			assertThat(later.get(10, TimeUnit.SECONDS).getStatusCode().value())
				.as("the one permit went to the later request")
				.isEqualTo(200);
			assertThat(server.arrivals()).containsExactly("/api/items?n=later");
		}
	}

	/** Takes the one token of the server's bucket for POST, without pacing. */
	private static void emptyBucket(RateLimitedServer server) {
		WebClient unpaced = WebClient.builder().clientConnector(connector()).baseUrl("http://" + server.host()).build();
		while (post(unpaced).getStatusCode().value() != 429) {
			// At most one token is left: the next one is refused.
		}
	}

	private static ResponseEntity<String> post(WebClient client) {
		return client.post()
			.uri("/api/orders")
			.bodyValue("{\"item\":1}")
			.exchangeToMono((response) -> response.toEntity(String.class))
			.block(TIMEOUT);
	}

	private static WebClient webClient(RateLimitedServer server, RequestPacer pacer) {
		return WebClient.builder()
			.clientConnector(connector())
			.baseUrl("http://" + server.host())
			.filter(new PacingExchangeFilter(pacer))
			.build();
	}

	private static JdkClientHttpConnector connector() {
		return new JdkClientHttpConnector(
				HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build());
	}

}
