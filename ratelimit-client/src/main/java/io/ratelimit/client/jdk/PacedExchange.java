package io.ratelimit.client.jdk;

import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * One request sent with {@code sendAsync}: the wait for a permit, the exchange and the
 * retries, each step started when the one before completes, without blocking. Cancelling
 * the result reaches the step under way: a request waiting for its permit leaves the line,
 * an exchange is cancelled.
 *
 * @param <T> the type of the caller's body
 */
final class PacedExchange<T> {

	private final RequestPacer pacer;

	private final Target target;

	private final String method;

	private final BodyHandler<T> handler;

	private final boolean retries;

	private final Function<BodyHandler<T>, CompletableFuture<HttpResponse<T>>> sender;

	private final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();

	private volatile @Nullable CompletableFuture<?> step;

	/**
	 * @param retries whether a refused request may be sent again
	 * @param sender sends the request with the attempt's body handler
	 */
	PacedExchange(RequestPacer pacer, Target target, String method, BodyHandler<T> handler, boolean retries,
			Function<BodyHandler<T>, CompletableFuture<HttpResponse<T>>> sender) {
		this.pacer = pacer;
		this.target = target;
		this.method = method;
		this.handler = handler;
		this.retries = retries;
		this.sender = sender;
	}

	CompletableFuture<HttpResponse<T>> start() {
		this.result.whenComplete((response, failure) -> {
			CompletableFuture<?> step = this.step;
			if (this.result.isCancelled() && step != null) {
				step.cancel(true);
			}
		});
		attempt(1);
		return this.result;
	}

	private void attempt(int attempt) {
		CompletableFuture<Permit> permit = this.pacer.acquireAsync(this.target, attempt);
		follow(permit);
		permit.whenComplete((granted, failure) -> {
			if (failure != null) {
				// The pacer's timer thread, which wakes every line, must never run the caller's
				// dependent actions: they run where the JDK runs those of its own futures.
				CompletableFuture.runAsync(() -> this.result.completeExceptionally(failure));
			}
			// A result cancelled just as the permit came sends nothing, so has nothing to report.
			else if (!this.result.isDone()) {
				send(granted, attempt);
			}
		});
	}

	private void send(Permit permit, int attempt) {
		PacedAttempt<T> paced = new PacedAttempt<>(this.pacer, permit, this.handler, this.method, attempt, this.retries);
		CompletableFuture<HttpResponse<T>> sent;
		try {
			sent = this.sender.apply(paced);
		}
		catch (RuntimeException ex) {
			paced.failed(ex);
			this.result.completeExceptionally(ex);
			return;
		}
		follow(sent);
		sent.whenComplete((response, failure) -> {
			if (failure != null) {
				paced.failed(failure);
				this.result.completeExceptionally(failure);
			}
			else if (paced.retry()) {
				attempt(attempt + 1);
			}
			else {
				this.result.complete(response);
			}
		});
	}

	/**
	 * Makes a step the one a cancellation reaches, and cancels it at once if the result was
	 * cancelled before it started.
	 */
	private void follow(CompletableFuture<?> next) {
		this.step = next;
		if (this.result.isCancelled()) {
			next.cancel(true);
		}
	}

}
