package io.ratelimit.client.jdk;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * A JDK {@link HttpClient} that paces its requests: each request waits for its target's
 * permit, each response is reported to the target's strategy as soon as its status and
 * headers arrive, and a request refused with 429 is sent again when the pacer allows it
 * (idempotent methods, within the attempts), the refused response's body discarded. The
 * caller gets the last response, a 429 included, or a
 * {@link io.ratelimit.client.PacingTimeoutException} when no permit came in time.
 *
 * <pre>{@code
 * HttpClient client = PacedHttpClient.of(HttpClient.newHttpClient(), pacer);
 * }</pre>
 *
 * <p>{@link #send send} waits on the calling thread; interrupting it while it waits takes
 * the request out of the line and throws {@link InterruptedException}.
 * {@link #sendAsync(HttpRequest, BodyHandler) sendAsync} never blocks; cancelling its future
 * takes a waiting request out of the line, or cancels the exchange under way. With a
 * {@link PushPromiseHandler} the request is paced and reported but never sent again, as a
 * retry would have the server push its resources again; the pushed responses, which nobody
 * asked for, are not paced. WebSocket handshakes are not paced. Everything else, and the
 * lifecycle methods of Java 21 ({@code shutdown}, {@code close}, ...), is the delegate's.
 */
public final class PacedHttpClient extends HttpClient implements AutoCloseable {

	private final HttpClient delegate;

	private final RequestPacer pacer;

	private PacedHttpClient(HttpClient delegate, RequestPacer pacer) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
	}

	/**
	 * Returns a client that paces the requests of another by the given pacer.
	 * @param delegate the client that sends the requests
	 * @param pacer the pacer, shared by the application's clients
	 * @return the paced client
	 */
	public static PacedHttpClient of(HttpClient delegate, RequestPacer pacer) {
		return new PacedHttpClient(delegate, pacer);
	}

	@Override
	public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
			throws IOException, InterruptedException {
		Objects.requireNonNull(handler, "handler must not be null");
		String method = request.method();
		Target target = this.pacer.target(method, request.uri());
		for (int attempt = 1;; attempt++) {
			Permit permit = this.pacer.acquire(target, attempt);
			PacedAttempt<T> paced = new PacedAttempt<>(this.pacer, permit, handler, method, attempt, true);
			HttpResponse<T> response;
			try {
				response = this.delegate.send(request, paced);
			}
			catch (IOException | RuntimeException ex) {
				paced.failed(ex);
				throw ex;
			}
			// An interrupted send is left unreported: the caller gave up, the server said nothing.
			if (!paced.retry()) {
				return response;
			}
		}
	}

	@Override
	public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
		Objects.requireNonNull(handler, "handler must not be null");
		return exchange(request, handler, true, (paced) -> this.delegate.sendAsync(request, paced));
	}

	@Override
	public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
			@Nullable PushPromiseHandler<T> pushPromiseHandler) {
		Objects.requireNonNull(handler, "handler must not be null");
		return exchange(request, handler, false,
				(paced) -> this.delegate.sendAsync(request, paced, pushPromiseHandler));
	}

	private <T> CompletableFuture<HttpResponse<T>> exchange(HttpRequest request, BodyHandler<T> handler,
			boolean retries, Function<BodyHandler<T>, CompletableFuture<HttpResponse<T>>> sender) {
		String method = request.method();
		return new PacedExchange<>(this.pacer, this.pacer.target(method, request.uri()), method, handler, retries,
				sender)
			.start();
	}

	@Override
	public Optional<CookieHandler> cookieHandler() {
		return this.delegate.cookieHandler();
	}

	@Override
	public Optional<Duration> connectTimeout() {
		return this.delegate.connectTimeout();
	}

	@Override
	public Redirect followRedirects() {
		return this.delegate.followRedirects();
	}

	@Override
	public Optional<ProxySelector> proxy() {
		return this.delegate.proxy();
	}

	@Override
	public SSLContext sslContext() {
		return this.delegate.sslContext();
	}

	@Override
	public SSLParameters sslParameters() {
		return this.delegate.sslParameters();
	}

	@Override
	public Optional<Authenticator> authenticator() {
		return this.delegate.authenticator();
	}

	@Override
	public Version version() {
		return this.delegate.version();
	}

	@Override
	public Optional<Executor> executor() {
		return this.delegate.executor();
	}

	@Override
	public WebSocket.Builder newWebSocketBuilder() {
		return this.delegate.newWebSocketBuilder();
	}

	/**
	 * Starts an orderly shutdown of the delegate, on Java 21 and later; does nothing on
	 * Java 17, whose {@code HttpClient} has no such method.
	 */
	public void shutdown() {
		ClientLifecycle.shutdown(this.delegate);
	}

	/**
	 * Starts an immediate shutdown of the delegate, on Java 21 and later; does nothing on
	 * Java 17.
	 */
	public void shutdownNow() {
		ClientLifecycle.shutdownNow(this.delegate);
	}

	/**
	 * Waits for the delegate to terminate after a shutdown, on Java 21 and later.
	 * @param duration the longest to wait
	 * @return whether the delegate terminated; {@code true} at once on Java 17
	 * @throws InterruptedException when interrupted while waiting
	 */
	public boolean awaitTermination(Duration duration) throws InterruptedException {
		return ClientLifecycle.awaitTermination(this.delegate, duration);
	}

	/**
	 * Returns whether the delegate terminated after a shutdown, on Java 21 and later.
	 * @return whether the delegate terminated; {@code false} on Java 17
	 */
	public boolean isTerminated() {
		return ClientLifecycle.isTerminated(this.delegate);
	}

	/**
	 * Closes the delegate, waiting for its requests to complete, on Java 21 and later; does
	 * nothing on Java 17. The pacer, shared by other clients, stays open.
	 */
	@Override
	public void close() {
		ClientLifecycle.close(this.delegate);
	}

	@Override
	public String toString() {
		return "PacedHttpClient[" + this.delegate + "]";
	}

}
