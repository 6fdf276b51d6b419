package io.ratelimit.client.jdk;

import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;

/**
 * The body handler of one paced attempt: reports the response to the permit as soon as its
 * status and headers arrive, before its body, and discards the body of a response that will
 * be sent again, which the caller never sees.
 *
 * @param <T> the type of the caller's body
 */
final class PacedAttempt<T> implements BodyHandler<T> {

	private final RequestPacer pacer;

	private final Permit permit;

	private final BodyHandler<T> handler;

	private final String method;

	private final int attempt;

	private final boolean retries;

	private volatile boolean retry;

	PacedAttempt(RequestPacer pacer, Permit permit, BodyHandler<T> handler, String method, int attempt,
			boolean retries) {
		this.pacer = pacer;
		this.permit = permit;
		this.handler = handler;
		this.method = method;
		this.attempt = attempt;
		this.retries = retries;
	}

	@Override
	public BodySubscriber<T> apply(ResponseInfo info) {
		Feedback feedback = Feedback.of(info.statusCode(), (name) -> info.headers().firstValue(name).orElse(null),
				this.pacer.clock().currentTimeMillis());
		this.retry = this.retries && this.pacer.mayRetry(this.method, this.attempt, feedback);
		this.permit.complete(feedback);
		return this.retry ? BodySubscribers.replacing(null) : this.handler.apply(info);
	}

	/**
	 * Returns whether the response was refused and is to be sent again.
	 */
	boolean retry() {
		return this.retry;
	}

	/**
	 * Reports an exchange that failed before its response arrived; a cancelled one, which the
	 * caller gave up on, teaches the strategy nothing.
	 */
	void failed(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (!(cause instanceof CancellationException)) {
			this.permit.complete(Feedback.noResponse());
		}
	}

}
