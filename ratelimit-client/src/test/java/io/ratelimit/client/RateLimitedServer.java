package io.ratelimit.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;

/**
 * A real HTTP server on {@code 127.0.0.1} in front of this project's own limiter, on the
 * system clock, for the tests of the client integrations. Every request is charged to the
 * bucket of its method and path (the query is ignored), under one policy of the given rate
 * and burst factor; every caller is {@code 127.0.0.1}, so each endpoint has one bucket. An
 * admitted request gets 200 with a short body, a refused one 429; both carry the limiter's
 * {@code RateLimit} and {@code RateLimit-Policy} fields, and a 429 its {@code Retry-After},
 * unless the server was started with {@link Fields#NONE}.
 *
 * <p>Counts what it received and refused per method, and the path and query of each request
 * in the order received.
 */
public final class RateLimitedServer implements AutoCloseable {

	/** The body of a 200. */
	public static final String BODY = "ok";

	private final HttpServer server;

	private final ExecutorService handlers;

	private final RateLimiter limiter;

	private final Fields fields;

	private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();

	private final ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();

	private RateLimitedServer(RateLimiter limiter, Fields fields) throws IOException {
		this.limiter = limiter;
		this.fields = fields;
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		AtomicInteger threads = new AtomicInteger();
		// Handlers off the dispatcher thread, so that a slow client never delays the others' decisions.
		this.handlers = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "rate-limited-server-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.server.setExecutor(this.handlers);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/**
	 * Starts a server that sends every field.
	 * @param rps the rate of the policy, e.g. {@code "2"}
	 * @param burstFactor the burst factor: the bucket holds {@code rps * burstFactor} tokens,
	 * at least 1
	 * @return the running server
	 */
	public static RateLimitedServer start(String rps, String burstFactor) {
		return start(rps, burstFactor, Fields.ALL);
	}

	/**
	 * Starts a server.
	 * @param rps the rate of the policy, e.g. {@code "2"}
	 * @param burstFactor the burst factor: the bucket holds {@code rps * burstFactor} tokens,
	 * at least 1
	 * @param fields what the responses say about the limit
	 * @return the running server
	 */
	public static RateLimitedServer start(String rps, String burstFactor, Fields fields) {
		Objects.requireNonNull(fields, "fields must not be null");
		BigDecimal rate = new BigDecimal(rps);
		ReloadablePolicies policies = new ReloadablePolicies(List::of,
				PolicySettings.of(rate, rate, new BigDecimal(burstFactor)), TimeSource.system());
		policies.reload();
		RateLimiter limiter = RateLimiter.builder((request) -> EndpointTemplate.of(request.method(), request.path()),
				policies)
			.buckets(LocalBucketStore.create(1000))
			.build();
		try {
			return new RateLimitedServer(limiter, fields);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start the rate-limited server", ex);
		}
	}

	/**
	 * Returns the absolute URI of a path on this server.
	 * @param pathAndQuery e.g. {@code /api/items?n=3}
	 * @return the URI
	 */
	public URI uri(String pathAndQuery) {
		return URI.create("http://" + host() + pathAndQuery);
	}

	/**
	 * Returns the authority of the server, as a {@link Target} names it.
	 * @return e.g. {@code 127.0.0.1:50123}
	 */
	public String host() {
		InetSocketAddress address = this.server.getAddress();
		return address.getAddress().getHostAddress() + ":" + address.getPort();
	}

	/**
	 * Returns how many requests of a method arrived, refused ones included.
	 * @param method e.g. {@code GET}
	 * @return the count
	 */
	public int received(String method) {
		return count(this.received, method);
	}

	/**
	 * Returns how many requests of a method were answered 429.
	 * @param method e.g. {@code GET}
	 * @return the count
	 */
	public int refused(String method) {
		return count(this.refused, method);
	}

	/**
	 * Returns the path and query of every request, in the order they arrived.
	 * @return e.g. {@code [/api/items?n=0, /api/items?n=1]}
	 */
	public List<String> arrivals() {
		return List.copyOf(this.arrivals);
	}

	/**
	 * Waits until the server received the given number of requests in all.
	 * @param requests the count to reach
	 * @param timeout the longest to wait
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void awaitArrivals(int requests, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.arrivals.size() < requests) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Received " + this.arrivals.size() + " requests, not " + requests + ", within "
						+ timeout + ": " + arrivals());
			}
			Thread.sleep(5);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.handlers.shutdownNow();
		try {
			this.handlers.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange; InputStream body = exchange.getRequestBody()) {
			// A client waits for its request to be read before it reads the answer.
			body.readAllBytes();
			String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
			URI uri = exchange.getRequestURI();
			this.arrivals.add((uri.getRawQuery() != null) ? uri.getRawPath() + "?" + uri.getRawQuery() : uri.getRawPath());
			this.received.computeIfAbsent(method, (key) -> new AtomicInteger()).incrementAndGet();
			Decision decision = this.limiter.evaluate(new ExchangeRequest(exchange, method));
			if (this.fields == Fields.ALL) {
				decision.forEachHeader(exchange.getResponseHeaders()::add);
			}
			if (decision.isRejected()) {
				this.refused.computeIfAbsent(method, (key) -> new AtomicInteger()).incrementAndGet();
			}
			respond(exchange, decision.isRejected() ? 429 : 200, decision.isRejected() ? "Too Many Requests" : BODY);
		}
	}

	private static void respond(HttpExchange exchange, int status, String text) throws IOException {
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	private static int count(Map<String, AtomicInteger> counts, String method) {
		AtomicInteger count = counts.get(method.toUpperCase(Locale.ROOT));
		return (count != null) ? count.get() : 0;
	}

	/** What the responses say about the limit. */
	public enum Fields {

		/** {@code RateLimit} and {@code RateLimit-Policy} on every response, {@code Retry-After} on a 429. */
		ALL,

		/** Nothing: a bare 429, as from a server that sends no fields. */
		NONE

	}

	private record ExchangeRequest(HttpExchange exchange, String method) implements RateLimitRequest {

		@Override
		public String path() {
			return this.exchange.getRequestURI().getRawPath();
		}

		@Override
		public @Nullable String remoteAddress() {
			return this.exchange.getRemoteAddress().getAddress().getHostAddress();
		}

		@Override
		public List<String> headers(String name) {
			List<String> values = this.exchange.getRequestHeaders().get(name);
			return (values != null) ? values : List.of();
		}

	}

}
