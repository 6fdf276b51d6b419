package io.ratelimit.client;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What every client integration of the {@link RequestPacer} owes its callers, over real HTTP
 * against this project's limiter ({@link RateLimitedServer}) on the system clock. A subclass
 * adapts one HTTP client through {@link #pacedClient} and adds the tests that only its
 * client can run (asynchronous sending, cancellation, lifecycle).
 */
public abstract class PacedClientContract {

	/** How long any one request of these tests may take to connect, be answered or be paced. */
	protected static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int BURST = 60;

	private static final int CALLERS = 4;

	private static final String ORDER = "{\"item\":1}";

	/**
	 * Returns a client of the integration under test, aimed at the server and paced by the
	 * pacer; the test closes it.
	 * @param server the server to send to
	 * @param pacer the pacer the client asks for permits
	 * @return the client
	 */
	protected abstract PacedClient pacedClient(RateLimitedServer server, RequestPacer pacer);

	@Test
	void sendWhenBurstFromSeveralCallersThenAllSucceedWithFewRefusals() throws Exception {
		// 20 tokens refilled at 20/s: a client that fires the 60 requests at once has about
		// 40 refused. The pacer spreads them over the refill (about 2 s; 0 refusals measured
		// with the header-aware strategy, 2 with its earlier steering), and the bound leaves
		// room for responses that arrive late on a loaded machine. Four callers at a time, the
		// load the bound was measured under.
		ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
		try (RateLimitedServer server = RateLimitedServer.start("20", "1");
				RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofSeconds(30)).build();
				PacedClient client = pacedClient(server, pacer)) {
			List<Future<Reply>> replies = new ArrayList<>();
			for (int i = 0; i < BURST; i++) {
				String pathAndQuery = "/api/items?n=" + i;
				replies.add(callers.submit(() -> client.send("GET", pathAndQuery, null)));
			}
			for (Future<Reply> reply : replies) {
				assertThat(reply.get(30, TimeUnit.SECONDS).body()).isEqualTo(RateLimitedServer.BODY);
			}

			assertThat(server.refused("GET")).as("429s at the server").isLessThanOrEqualTo(8);
			assertThat(server.received("GET")).as("each refused request sent again")
				.isEqualTo(BURST + server.refused("GET"));
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void sendWhenPostRefusedThenNotSentAgain() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().build();
				PacedClient client = pacedClient(server, pacer)) {
			emptyBucket(server);
			int sent = server.received("POST");

			Reply reply = client.send("POST", "/api/orders", ORDER);

			assertThat(reply.status()).isEqualTo(429);
			assertThat(reply.retryAfter()).isNotNull();
			assertThat(server.received("POST") - sent).as("POSTs the paced client sent").isEqualTo(1);
		}
	}

	@Test
	void sendWhenPostRefusedAndNonIdempotentRetriedThenSentAgain() throws Exception {
		try (RateLimitedServer server = RateLimitedServer.start("1", "1");
				RequestPacer pacer = RequestPacer.builder().retryNonIdempotent(true).build();
				PacedClient client = pacedClient(server, pacer)) {
			emptyBucket(server);
			int sent = server.received("POST");
			int refused = server.refused("POST");

			Reply reply = client.send("POST", "/api/orders", ORDER);

			assertThat(reply.status()).isEqualTo(200);
			assertThat(reply.body()).isEqualTo(RateLimitedServer.BODY);
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
				PacedClient client = pacedClient(server, pacer)) {
			assertThat(client.send("GET", "/api/items", null).body()).isEqualTo(RateLimitedServer.BODY);
			long start = System.nanoTime();

			assertThatExceptionOfType(PacingTimeoutException.class)
				.isThrownBy(() -> client.send("GET", "/api/items", null))
				.withMessageContaining("GET /api/items on " + server.host());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	/**
	 * Returns a JDK client as every integration here is built on: HTTP/1.1, so that each
	 * request is one exchange the server counts, and a bounded connect.
	 * @return a new client
	 */
	protected static HttpClient newHttpClient() {
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
	}

	/** Takes the one token of the server's bucket for POST, without pacing. */
	private static void emptyBucket(RateLimitedServer server) throws Exception {
		HttpClient unpaced = newHttpClient();
		HttpRequest request = HttpRequest.newBuilder(server.uri("/api/orders"))
			.timeout(TIMEOUT)
			.POST(BodyPublishers.ofString(ORDER))
			.build();
		while (unpaced.send(request, BodyHandlers.discarding()).statusCode() != 429) {
			// At most one token is left: the next one is refused.
		}
	}

	/**
	 * One client of the integration under test, as the contract drives it.
	 */
	@FunctionalInterface
	protected interface PacedClient extends AutoCloseable {

		/**
		 * Sends one request through the pacer and waits for its response, a 429 included. A
		 * {@link PacingTimeoutException} is thrown as it is, not in whatever the client
		 * wraps it in, so that the contract can check it names the target.
		 * @param method the HTTP method
		 * @param pathAndQuery the path and query on the server
		 * @param body the body to send, or {@code null} for none
		 * @return the response
		 * @throws Exception what the client throws when the request fails
		 */
		Reply send(String method, String pathAndQuery, @Nullable String body) throws Exception;

		@Override
		default void close() {
		}

	}

	/**
	 * The parts of a response that the contract checks.
	 * @param status the status code
	 * @param body the body
	 * @param retryAfter the {@code Retry-After} field, if any
	 */
	public record Reply(int status, @Nullable String body, @Nullable String retryAfter) {
	}

}
