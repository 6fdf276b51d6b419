package io.ratelimit.client.jdk;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.ratelimit.client.GatedStrategy;
import io.ratelimit.client.PacedClientContract;
import io.ratelimit.client.PacingTimeoutException;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link PacedHttpClient} over real HTTP against this project's limiter
 * ({@link RateLimitedServer}) on the system clock.
 */
class PacedHttpClientTest extends PacedClientContract {

	@Override
	protected PacedClient pacedClient(RateLimitedServer server, RequestPacer pacer) {
		PacedHttpClient client = PacedHttpClient.of(newHttpClient(), pacer);
		return new PacedClient() {

			@Override
			public Reply send(String method, String pathAndQuery, @Nullable String body) throws Exception {
				HttpRequest request = HttpRequest.newBuilder(server.uri(pathAndQuery))
					.timeout(TIMEOUT)
					.method(method, (body != null) ? BodyPublishers.ofString(body) : BodyPublishers.noBody())
					.build();
				HttpResponse<String> response = client.send(request, BodyHandlers.ofString());
				return new Reply(response.statusCode(), response.body(),
						response.headers().firstValue("Retry-After").orElse(null));
			}

			@Override
			public void close() {
				client.close();
			}

		};
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

	private static HttpRequest get(RateLimitedServer server, String pathAndQuery) {
		return HttpRequest.newBuilder(server.uri(pathAndQuery)).timeout(TIMEOUT).build();
	}

}
