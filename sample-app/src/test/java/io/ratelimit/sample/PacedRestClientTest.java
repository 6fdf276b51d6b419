package io.ratelimit.sample;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.spring.PacingInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code RestClient} paced by {@code ratelimit-client} against the sample over HTTP: the
 * anonymous catalogue (40 requests of burst, 20 per second) called 100 times in a row from
 * one address. Its own context, so that its buckets are its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.application.name=ratelimit-sample-paced-client")
class PacedRestClientTest {

	private static final int CALLS = 100;

	@LocalServerPort
	private int port;

	private final RequestPacer pacer = RequestPacer.builder().maxWait(Duration.ofSeconds(30)).build();

	/** Counts what reaches the server: sits behind the pacing, so it sees every attempt. */
	private final AtomicInteger attempts = new AtomicInteger();

	private final AtomicInteger refused = new AtomicInteger();

	private final ClientHttpRequestInterceptor counting = (request, body, execution) -> {
		var response = execution.execute(request, body);
		this.attempts.incrementAndGet();
		if (response.getStatusCode().isSameCodeAs(HttpStatus.TOO_MANY_REQUESTS)) {
			this.refused.incrementAndGet();
		}
		return response;
	};

	@AfterEach
	void closePacer() {
		this.pacer.close();
	}

	@Test
	void restClientWhenPacedThenEveryCallServedWithoutRunningIntoTheLimit() {
		RestClient client = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + this.port)
			.requestInterceptor(new PacingInterceptor(this.pacer))
			.requestInterceptor(this.counting)
			.build();

		long started = System.nanoTime();
		int served = 0;
		for (int i = 0; i < CALLS; i++) {
			served += client.get().uri("/api/products").retrieve().toBodilessEntity().getStatusCode().is2xxSuccessful()
					? 1 : 0;
		}

		System.out.printf("[client] %d paced calls: %d attempts, %d refused, %.1f s%n", CALLS, this.attempts.get(),
				this.refused.get(), (System.nanoTime() - started) / 1e9);
		assertThat(served).isEqualTo(CALLS);
		// The same loop unpaced meets the limit on every call past the burst's 40.
		assertThat(this.refused.get()).as("429s the server sent to %d attempts", this.attempts.get())
			.isLessThanOrEqualTo(3);
	}

	@Test
	void restClientWhenUnpacedThenMostCallsPastTheBurstRefused() {
		RestClient client = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + this.port)
			.requestInterceptor(this.counting)
			.defaultStatusHandler((status) -> true, (request, response) -> {
			})
			.build();

		for (int i = 0; i < CALLS; i++) {
			client.get().uri("/api/products/1").retrieve().toBodilessEntity();
		}

		System.out.printf("[client] %d unpaced calls: %d refused%n", CALLS, this.refused.get());
		assertThat(this.refused.get()).as("the control: the limit is there to be met").isGreaterThan(20);
	}

}
