package io.ratelimit.client.spring;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.Target;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Paces the requests of a {@code RestClient} or {@code RestTemplate}: each request waits for
 * its target's permit, each response is reported to the target's strategy, and a request
 * refused with 429 is sent again when the pacer allows it (idempotent methods, within the
 * attempts). The caller sees the last response, a 429 included, or a
 * {@link io.ratelimit.client.PacingTimeoutException} when no permit came in time.
 *
 * <pre>{@code
 * RestClient client = RestClient.builder()
 *     .baseUrl("https://api.example.com")
 *     .requestInterceptor(new PacingInterceptor(pacer))
 *     .build();
 * }</pre>
 */
public final class PacingInterceptor implements ClientHttpRequestInterceptor {

	private final RequestPacer pacer;

	/**
	 * Creates an interceptor that paces by the given pacer.
	 * @param pacer the pacer, shared by the application's clients
	 */
	public PacingInterceptor(RequestPacer pacer) {
		this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		String method = request.getMethod().name();
		Target target = this.pacer.target(method, request.getURI());
		for (int attempt = 1;; attempt++) {
			Permit permit = acquire(target, attempt);
			ClientHttpResponse response;
			try {
				response = execution.execute(request, body);
			}
			catch (IOException | RuntimeException ex) {
				permit.complete(Feedback.noResponse());
				throw ex;
			}
			Feedback feedback = Feedback.of(response.getStatusCode().value(), response.getHeaders()::getFirst,
					this.pacer.clock().currentTimeMillis());
			permit.complete(feedback);
			if (!this.pacer.mayRetry(method, attempt, feedback)) {
				return response;
			}
			response.close();
		}
	}

	private Permit acquire(Target target, int attempt) throws InterruptedIOException {
		try {
			return this.pacer.acquire(target, attempt);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new InterruptedIOException("Interrupted while waiting to call " + target);
		}
	}

}
