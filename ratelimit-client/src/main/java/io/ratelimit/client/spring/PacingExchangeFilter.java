package io.ratelimit.client.spring;

import java.util.Objects;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.Target;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Paces the requests of a {@code WebClient} without blocking: each request waits for its
 * target's permit, each response is reported to the target's strategy, and a request refused
 * with 429 is sent again when the pacer allows it (idempotent methods, within the attempts),
 * its refused response released first. The subscriber gets the last response, a 429
 * included, or a {@link io.ratelimit.client.PacingTimeoutException} when no permit came in
 * time. Cancelling a request that waits for its permit takes it out of the line at once.
 *
 * <pre>{@code
 * WebClient client = WebClient.builder()
 *     .baseUrl("https://api.example.com")
 *     .filter(new PacingExchangeFilter(pacer))
 *     .build();
 * }</pre>
 *
 * <p>A retry writes the request's body again: a body that can be written only once (a
 * one-shot {@code Publisher}) fails on a retry, so a client that sends such bodies with
 * {@code PUT} or {@code DELETE}, or with {@code retryNonIdempotent}, needs a pacer built
 * with {@code maxAttempts(1)}.
 */
public final class PacingExchangeFilter implements ExchangeFilterFunction {

	private final RequestPacer pacer;

	/**
	 * Creates a filter that paces by the given pacer.
	 * @param pacer the pacer, shared by the application's clients
	 */
	public PacingExchangeFilter(RequestPacer pacer) {
		this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return Mono.defer(() -> new PacedRequest(request, next).attempt(1));
	}

	/**
	 * One request through the filter: its target, resolved once, and its attempts.
	 */
	private final class PacedRequest {

		private final ClientRequest request;

		private final ExchangeFunction next;

		private final String method;

		private final Target target;

		PacedRequest(ClientRequest request, ExchangeFunction next) {
			this.request = request;
			this.next = next;
			this.method = request.method().name();
			this.target = PacingExchangeFilter.this.pacer.target(this.method, request.url());
		}

		Mono<ClientResponse> attempt(int attempt) {
			RequestPacer pacer = PacingExchangeFilter.this.pacer;
			// Not suppressing the cancel: a cancelled subscription cancels the future, which
			// takes the request out of the line instead of letting it take a permit nobody uses.
			return Mono.fromFuture(() -> pacer.acquireAsync(this.target, attempt), false)
				.flatMap((permit) -> this.next.exchange(this.request)
					.doOnError((ex) -> permit.complete(Feedback.noResponse()))
					.flatMap((response) -> answer(attempt, permit, response)));
		}

		private Mono<ClientResponse> answer(int attempt, Permit permit, ClientResponse response) {
			RequestPacer pacer = PacingExchangeFilter.this.pacer;
			Feedback feedback = Feedback.of(response.statusCode().value(), response.headers().asHttpHeaders()::getFirst,
					pacer.clock().currentTimeMillis());
			permit.complete(feedback);
			if (!pacer.mayRetry(this.method, attempt, feedback)) {
				return Mono.just(response);
			}
			// The refused response's connection goes back to the pool before the retry waits.
			return response.releaseBody().then(Mono.defer(() -> attempt(attempt + 1)));
		}

	}

}
