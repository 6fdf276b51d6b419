package io.ratelimit.client.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.ratelimit.client.GatedStrategy;
import io.ratelimit.client.PacedClientContract;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PacingExchangeFilter} in a {@code WebClient} over real HTTP (the JDK connector)
 * against this project's limiter ({@link RateLimitedServer}) on the system clock.
 */
class PacingExchangeFilterTest extends PacedClientContract {

	@Override
	protected PacedClient pacedClient(RateLimitedServer server, RequestPacer pacer) {
		WebClient client = webClient(server, pacer);
		return (method, pathAndQuery, body) -> {
			WebClient.RequestBodySpec request = client.method(HttpMethod.valueOf(method)).uri(pathAndQuery);
			ResponseEntity<String> response = ((body != null) ? request.bodyValue(body) : request)
				.exchangeToMono((clientResponse) -> clientResponse.toEntity(String.class))
				.block(TIMEOUT);
			return new Reply(response.getStatusCode().value(), response.getBody(),
					response.getHeaders().getFirst("Retry-After"));
		};
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

	private static WebClient webClient(RateLimitedServer server, RequestPacer pacer) {
		return WebClient.builder()
			.clientConnector(new JdkClientHttpConnector(newHttpClient()))
			.baseUrl("http://" + server.host())
			.filter(new PacingExchangeFilter(pacer))
			.build();
	}

}
