package io.ratelimit.client.fleet;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulConnection;
import io.ratelimit.client.PacingClock;
import org.jspecify.annotations.Nullable;

/**
 * A Lettuce connection opened in the background, and opened again after an attempt failed,
 * at most once per retry delay; once open, Lettuce reconnects it by itself. Nobody waits for
 * an attempt: {@link #get()} returns the connection if it is there, and nothing otherwise,
 * so that commands never pile up behind a server that does not answer.
 *
 * @param <C> the connection type
 */
final class LazyConnection<C extends StatefulConnection<?, ?>> implements AutoCloseable {

	private final Supplier<CompletionStage<C>> opener;

	private final ScheduledExecutorService executor;

	private final PacingClock clock;

	private final long retryNanos;

	private final Consumer<Throwable> failures;

	private final AtomicReference<@Nullable CompletableFuture<C>> attempt = new AtomicReference<>();

	private volatile long failedAt;

	private volatile boolean settledOnce;

	private volatile boolean closed;

	/**
	 * Creates a connection that is not open yet.
	 * @param opener starts opening the connection
	 * @param executor where the opener runs, because the first connection in a JVM loads and
	 * initializes the client for about a second; and the timer of the attempts
	 * @param clock the clock the retry delay is measured on
	 * @param retryNanos the longest an attempt may take, and the least time between a failed
	 * attempt and the next
	 * @param failures told of every failed attempt
	 */
	LazyConnection(Supplier<CompletionStage<C>> opener, ScheduledExecutorService executor, PacingClock clock,
			long retryNanos, Consumer<Throwable> failures) {
		this.opener = opener;
		this.executor = executor;
		this.clock = clock;
		this.retryNanos = retryNanos;
		this.failures = failures;
	}

	/**
	 * Returns the connection if it opened; otherwise starts an attempt, unless one is under
	 * way or the last failed too recently.
	 * @return the connection (which may be reconnecting), or {@code null} while none opened
	 */
	@Nullable C get() {
		CompletableFuture<C> current = this.attempt.get();
		if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
			return current.join();
		}
		if (!this.closed && (current == null || mayRetry(current))) {
			CompletableFuture<C> next = new CompletableFuture<>();
			if (this.attempt.compareAndSet(current, next)) {
				open(next);
			}
		}
		return null;
	}

	/**
	 * Returns whether the first attempt is still under way: until it ends, nothing has failed.
	 * @return whether no attempt has ended yet
	 */
	boolean firstAttemptPending() {
		return !this.settledOnce;
	}

	private boolean mayRetry(CompletableFuture<C> current) {
		return current.isCompletedExceptionally() && this.clock.nanoTime() - this.failedAt >= this.retryNanos;
	}

	private void open(CompletableFuture<C> next) {
		try {
			this.executor.execute(() -> {
				try {
					this.opener.get().whenComplete((connection, ex) -> settle(next, connection, ex));
				}
				catch (RuntimeException ex) {
					settle(next, null, ex);
				}
			});
			this.executor.schedule(() -> settle(next, null, tooLong()), this.retryNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The client's threads are shut down: the application closed the client first.
			settle(next, null, ex);
		}
	}

	private RedisConnectionException tooLong() {
		return new RedisConnectionException(
				"No connection to Redis within " + TimeUnit.NANOSECONDS.toMillis(this.retryNanos) + " ms");
	}

	private void settle(CompletableFuture<C> next, @Nullable C connection, @Nullable Throwable failure) {
		this.settledOnce = true;
		if (connection != null) {
			// Too late (the attempt timed out) or no longer wanted: nobody else will close it.
			if (!next.complete(connection) || this.closed) {
				connection.closeAsync();
			}
			return;
		}
		if (next.isDone()) {
			return;
		}
		// Written before the attempt fails, so that whoever sees it failed sees when.
		this.failedAt = this.clock.nanoTime();
		Throwable cause = (failure != null) ? failure : new RedisConnectionException("No connection to Redis");
		if (next.completeExceptionally(cause)) {
			this.failures.accept(cause);
		}
	}

	/**
	 * Closes the connection if it opened, or as soon as it opens.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		CompletableFuture<C> current = this.attempt.get();
		if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
			current.join().close();
		}
	}

}
