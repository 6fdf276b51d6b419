package io.ratelimit.client.jdk;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.ratelimit.client.GatedStrategy;
import io.ratelimit.client.PacingTimeoutException;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PacedHttpClient} over real HTTP against this project's limiter
 * ({@link RateLimitedServer}) on the system clock.
 */
class PacedHttpClientTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int BURST = 60;

	@Test
	void sendWhenBurstFromSeveralThreadsThenAllSucceedWithFewRefusals() throws Exception {
		// 20 tokens refilled at 20/s: a client that fires the 60 requests at once has about
		// 40 refused. The pacer spreads them over the refill (about 2 s; 0 refusals measured
		// with the header-aware strategy, 2 with its earlier steering), and the bound leaves
		// room for responses that arrive late on a loaded machine.
		try (RateLimitedServer server = RateLimitedServer.start("20", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofSeconds(30)).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			ExecutorService threads = Executors.newFixedThreadPool(4);
			List<Future<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < BURST; i++) {
				HttpRequest request = get(server, "/api/items?n=" + i);
				responses.add(threads.submit(() -> client.send(request, BodyHandlers.ofString())));
			}
			for (Future<HttpResponse<String>> response : responses) {
				assertThat(response.get(30, TimeUnit.SECONDS).body()).isEqualTo(RateLimitedServer.BODY);
			}
			threads.shutdown();

			assertThat(server.refused("GET")).as("429s at the server").isLessThanOrEqualTo(8);
			assertThat(server.received("GET")).as("each refused request sent again")
				.isEqualTo(BURST + server.refused("GET"));
		}
	}

	@Test
	void sendAsyncWhenPermitsComeOneByOneThenRequestsLeaveInOrderOfSending() throws Exception {
		// Under a real strategy, permits can come microseconds apart and the requests race to
		// the server; a gate that opens once per arrival makes the order of the line visible.
		GatedStrategy gate = new GatedStrategy();
		try (RateLimitedServer server = RateLimitedServer.start("100", "1");
				RequestPacer pacer = RequestPacer.builder().strategy(gate).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				responses.add(client.sendAsync(get(server, "/api/items?n=" + i), BodyHandlers.ofString()));
			}
			for (int i = 1; i <= 10; i++) {
				gate.open(1);
				server.awaitArrivals(i, TIMEOUT);
			}

			assertThat(server.arrivals())
				.containsExactlyElementsOf(IntStream.range(0, 10).mapToObj((i) -> "/api/items?n=" + i).toList());
			for (CompletableFuture<HttpResponse<String>> response : responses) {
				assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			}
		}
	}

	@Test
	void sendWhenPostRefusedThenNotSentAgain() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			emptyBucket(server, "POST");
			int sent = server.received("POST");

			HttpResponse<String> response = client.send(post(server), BodyHandlers.ofString());

			assertThat(response.statusCode()).isEqualTo(429);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent").isEqualTo(1);
		}
	}

	@Test
	void sendWhenPostRefusedAndNonIdempotentRetriedThenSentAgain() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().retryNonIdempotent(true).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			emptyBucket(server, "POST");
			int sent = server.received("POST");
			int refused = server.refused("POST");

			HttpResponse<String> response = client.send(post(server), BodyHandlers.ofString());

			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo(RateLimitedServer.BODY);
			assertThat(server.refused("POST") - refused).as("POSTs of the paced client refused").isPositive();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent")
				.isEqualTo(server.refused("POST") - refused + 1);
		}
	}

	@Test
	void sendWhenRetryAfterBeyondMaxWaitThenFailsAtOnceNamingTarget() throws Exception {
		// One token refilled every 10 s: the second request is refused with Retry-After 10.
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofMillis(200)).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			assertThat(client.send(get(server, "/api/items"), BodyHandlers.ofString()).statusCode()).isEqualTo(200);
			long start = System.nanoTime();

			assertThatExceptionOfType(PacingTimeoutException.class)
				.isThrownBy(() -> client.send(get(server, "/api/items"), BodyHandlers.ofString()))
				.withMessageContaining("GET /api/items on " + server.host());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	@Test
	void sendWhenInterruptedWhileWaitingThenThrowsAndLeavesTheLine() throws Exception {
		GatedStrategy gate = new GatedStrategy();
		try (RateLimitedServer server = RateLimitedServer.start("100", "1");
				RequestPacer pacer = RequestPacer.builder().strategy(gate).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			CompletableFuture<Throwable> outcome = new CompletableFuture<>();
			Thread waiting = new Thread(() -> {
				try {
					client.send(get(server, "/api/items?n=interrupted"), BodyHandlers.ofString());
					outcome.complete(null);
				}
				catch (Exception ex) {
					outcome.complete(ex);
				}
			});
			waiting.start();
			gate.awaitAsks(1, TIMEOUT);
			CompletableFuture<HttpResponse<String>> later = client.sendAsync(get(server, "/api/items?n=later"),
					BodyHandlers.ofString());

			waiting.interrupt();
			assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			gate.open(1);

			assertThat(later.get(10, TimeUnit.SECONDS).statusCode()).as("the one permit went to the later request")
				.isEqualTo(200);
			assertThat(server.arrivals()).containsExactly("/api/items?n=later");
		}
	}

	@Test
	void sendAsyncWhenCancelledWhileWaitingThenLeavesTheLine() throws Exception {
		GatedStrategy gate = new GatedStrategy();
		try (RateLimitedServer server = RateLimitedServer.start("100", "1");
				RequestPacer pacer = RequestPacer.builder().strategy(gate).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			CompletableFuture<HttpResponse<String>> cancelled = client
				.sendAsync(get(server, "/api/items?n=cancelled"), BodyHandlers.ofString());
			gate.awaitAsks(1, TIMEOUT);
			CompletableFuture<HttpResponse<String>> later = client.sendAsync(get(server, "/api/items?n=later"),
					BodyHandlers.ofString());

			cancelled.cancel(true);
			gate.open(1);

			assertThat(later.get(10, TimeUnit.SECONDS).statusCode()).as("the one permit went to the later request")
				.isEqualTo(200);
			assertThat(server.arrivals()).containsExactly("/api/items?n=later");
		}
	}

	@Test
	void sendAsyncWhenRetryAfterBeyondMaxWaitThenFailsWithPacingTimeout() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("0.1", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofMillis(200)).build();
				PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer)) {
			assertThat(client.sendAsync(get(server, "/api/items"), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS)
				.statusCode()).isEqualTo(200);

			CompletableFuture<HttpResponse<String>> refused = client.sendAsync(get(server, "/api/items"),
					BodyHandlers.ofString());

			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> refused.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(PacingTimeoutException.class);
		}
	}

	@Test
	void closeWhenRuntimeHasLifecycleThenClosesDelegate() {
		try (RequestPacer pacer = RequestPacer.builder().build()) {
			PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer);

			client.close();

			assertThat(client.isTerminated()).as("terminated, on Java 21 and later")
				.isEqualTo(Runtime.version().feature() >= 21);
		}
	}

	/** Takes the one token of the server's bucket for the method, without pacing. */
	private static void emptyBucket(RateLimitedServer server, String method) throws Exception {
		HttpClient unpaced = newHttpClient();
		HttpRequest request = HttpRequest.newBuilder(server.uri("/api/orders"))
			.method(method, BodyPublishers.ofString("{}"))
			.build();
		while (unpaced.send(request, BodyHandlers.discarding()).statusCode() != 429) {
			// At most one token is left: the next one is refused.
		}
	}

	private static HttpClient newHttpClient() {
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
	}

	private static HttpRequest get(RateLimitedServer server, String pathAndQuery) {
		return HttpRequest.newBuilder(server.uri(pathAndQuery)).timeout(TIMEOUT).build();
	}

	private static HttpRequest post(RateLimitedServer server) {
		return HttpRequest.newBuilder(server.uri("/api/orders"))
			.timeout(TIMEOUT)
			.POST(BodyPublishers.ofString("{\"item\":1}"))
			.build();
	}

}
