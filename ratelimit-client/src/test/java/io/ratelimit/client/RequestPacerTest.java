package io.ratelimit.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The waiting lines of {@link RequestPacer} on the system clock, with a strategy that gives
 * one permit per 100 ms, so that each line holds its waiters for a while.
 */
class RequestPacerTest {

	private static final Target TARGET = new Target("api.example.com", "GET /api/products/*");

	private static final long INTERVAL_NANOS = Duration.ofMillis(100).toNanos();

	/** One permit per 100 ms, the first at once. */
	private static final PacingStrategy EVERY_100_MS = (target, random, start) -> new Pacing() {

		private long next = start;

		@Override
		public long tryAcquire(long nowNanos) {
			if (nowNanos - this.next < 0) {
				return this.next - nowNanos;
			}
			this.next = nowNanos + INTERVAL_NANOS;
			return 0;
		}

		@Override
		public void onFeedback(long nowNanos, Feedback feedback) {
		}

	};

	private final RequestPacer pacer = RequestPacer.builder()
		.strategy(EVERY_100_MS)
		.maxWait(Duration.ofSeconds(5))
		.build();

	@AfterEach
	void close() {
		this.pacer.close();
	}

	@Test
	void acquireAsyncWhenSeveralWaitThenPermitsInOrderOfAsking() {
		List<Integer> order = new ArrayList<>();
		List<CompletableFuture<?>> permits = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			int index = i;
			permits.add(this.pacer.acquireAsync(TARGET, 1).thenAccept((permit) -> {
				synchronized (order) {
					order.add(index);
				}
			}));
		}
		CompletableFuture.allOf(permits.toArray(CompletableFuture[]::new)).join();

		assertThat(order).containsExactly(0, 1, 2, 3, 4);
	}

	@Test
	void acquireAsyncWhenRetryThenGoesAheadOfTheLine() {
		this.pacer.acquireAsync(TARGET, 1).join();
		CompletableFuture<Permit> first = this.pacer.acquireAsync(TARGET, 1);
		CompletableFuture<Permit> retry = this.pacer.acquireAsync(TARGET, 2);

		retry.join();

		assertThat(first).isNotDone();
		first.join();
	}

	@Test
	void acquireWhenDeadlinePassesThenPacingTimeoutNamingTarget() {
		RequestPacer impatient = RequestPacer.builder().strategy(EVERY_100_MS).maxWait(Duration.ofMillis(150)).build();
		try {
			for (int i = 0; i < 3; i++) {
				impatient.acquireAsync(TARGET, 1);
			}
			long start = System.nanoTime();
			assertThatThrownBy(() -> impatient.acquire(TARGET, 1)).isInstanceOf(PacingTimeoutException.class)
				.hasMessageContaining("GET /api/products/* on api.example.com")
				.hasMessageContaining("the request was not sent");
			assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
		}
		finally {
			impatient.close();
		}
	}

	@Test
	void acquireWhenStrategyHoldsLongerThanDeadlineThenFailsAtOnce() {
		PacingStrategy held = (target, random, start) -> new Pacing() {

			@Override
			public long tryAcquire(long nowNanos) {
				return Duration.ofMinutes(1).toNanos();
			}

			@Override
			public void onFeedback(long nowNanos, Feedback feedback) {
			}

		};
		RequestPacer pacer = RequestPacer.builder().strategy(held).maxWait(Duration.ofSeconds(10)).build();
		try {
			long start = System.nanoTime();
			assertThatThrownBy(() -> pacer.acquire(TARGET, 1)).isInstanceOf(PacingTimeoutException.class)
				.hasMessageContaining("holds requests back for another PT1M");
			assertThat(System.nanoTime() - start).as("not the 10 s deadline").isLessThan(TimeUnit.SECONDS.toNanos(2));
		}
		finally {
			pacer.close();
		}
	}

	@Test
	void acquireAsyncWhenCancelledThenLeavesLineAndNextGetsItsPermit() {
		this.pacer.acquireAsync(TARGET, 1).join();
		CompletableFuture<Permit> cancelled = this.pacer.acquireAsync(TARGET, 1);
		CompletableFuture<Permit> next = this.pacer.acquireAsync(TARGET, 1);

		cancelled.cancel(false);

		Permit permit = next.join();
		assertThat(permit.target()).isEqualTo(TARGET);
	}

	@Test
	void acquireAsyncWhenOtherTargetBusyThenDoesNotWait() {
		for (int i = 0; i < 10; i++) {
			this.pacer.acquireAsync(TARGET, 1);
		}
		Target other = this.pacer.target("GET", URI.create("https://api.example.com/api/orders/42"));

		assertThat(other).isEqualTo(new Target("api.example.com", "GET /api/orders/*"));
		assertThat(this.pacer.acquireAsync(other, 1)).isCompleted();
	}

	@Test
	void mayRetryWhenRefusedThenOnlyIdempotentAndWithinAttempts() {
		Feedback refused = Feedback.of(429, (name) -> null, 0);

		assertThat(this.pacer.mayRetry("GET", 1, refused)).isTrue();
		assertThat(this.pacer.mayRetry("PUT", 2, refused)).isTrue();
		assertThat(this.pacer.mayRetry("GET", 3, refused)).as("third of three attempts").isFalse();
		assertThat(this.pacer.mayRetry("POST", 1, refused)).isFalse();
		assertThat(this.pacer.mayRetry("GET", 1, Feedback.of(503, (name) -> null, 0))).isFalse();
		RequestPacer bold = RequestPacer.builder().retryNonIdempotent(true).build();
		assertThat(bold.mayRetry("POST", 1, refused)).isTrue();
		bold.close();
	}

}
