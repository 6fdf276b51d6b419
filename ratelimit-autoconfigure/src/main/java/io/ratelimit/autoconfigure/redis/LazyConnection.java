package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisConnectionException;
import org.jspecify.annotations.Nullable;

/**
 * A connection to Redis opened on first use. One attempt at a time runs, on a thread of its
 * own; every request that needs the connection meanwhile waits for that attempt, and no
 * request waits longer than a bound, whatever the attempt takes. When Redis hangs, requests
 * therefore wait for one bounded wait each, not for one attempt each in turn (which kept the
 * last of a queue of requests waiting for seconds), and not for an attempt that asks several
 * sentinels or cluster nodes one after another (which can take several timeouts). A failed
 * attempt fails every request that waited for it, with its cause. Once open, the connection
 * stays: Lettuce reconnects by itself.
 *
 * @param <C> what opening produces
 */
final class LazyConnection<C> {

	private final Supplier<C> open;

	private final Duration wait;

	private final String threadName;

	/** Guards {@link #attempt}; never held while the network is waited for. */
	private final Object lock = new Object();

	private volatile @Nullable C connection;

	private @Nullable CompletableFuture<C> attempt;

	/**
	 * Creates a connection not opened yet.
	 * @param open opens it, or throws if Redis cannot be reached
	 * @param timeout the timeout of Redis calls: a request waits for an attempt at most
	 * twice that (a standalone attempt takes about one: connecting and the handshake share
	 * it), and at least a second, which the first attempt of a cold JVM (loading and
	 * compiling the client) may need
	 * @param threadName the name of the thread that runs an attempt
	 */
	LazyConnection(Supplier<C> open, Duration timeout, String threadName) {
		this.open = Objects.requireNonNull(open, "open must not be null");
		this.wait = longest(timeout.multipliedBy(2), Duration.ofSeconds(1));
		this.threadName = Objects.requireNonNull(threadName, "threadName must not be null");
	}

	/**
	 * Returns the connection if it is open.
	 * @return the connection, or {@code null} before it is opened
	 */
	@Nullable C ifOpen() {
		return this.connection;
	}

	/**
	 * Returns the connection, starting an attempt to open it if none is under way, and
	 * waiting for the attempt at most the bound.
	 * @return the connection
	 * @throws RedisConnectionException if the attempt failed (its cause attached), or did
	 * not end within the bound (it goes on, and a later request may find it open)
	 */
	C get() {
		C current = this.connection;
		if (current != null) {
			return current;
		}
		CompletableFuture<C> pending = attempt();
		try {
			return pending.get(this.wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new RedisConnectionException("Connecting to Redis failed: " + cause.getMessage(), cause);
		}
		catch (TimeoutException ex) {
			throw new RedisConnectionException("Still connecting to Redis after " + this.wait.toMillis() + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionException("Interrupted while waiting for the connection to Redis", ex);
		}
	}

	private static Duration longest(Duration one, Duration other) {
		return (one.compareTo(other) >= 0) ? one : other;
	}

	private CompletableFuture<C> attempt() {
		synchronized (this.lock) {
			C current = this.connection;
			if (current != null) {
				return CompletableFuture.completedFuture(current);
			}
			CompletableFuture<C> pending = this.attempt;
			if (pending == null) {
				CompletableFuture<C> started = new CompletableFuture<>();
				pending = started;
				this.attempt = started;
				Thread thread = new Thread(() -> open(started), this.threadName);
				thread.setDaemon(true);
				thread.start();
			}
			return pending;
		}
	}

	private void open(CompletableFuture<C> attempt) {
		try {
			C opened = this.open.get();
			synchronized (this.lock) {
				this.connection = opened;
				this.attempt = null;
			}
			attempt.complete(opened);
		}
		catch (Throwable ex) {
			// Errors too (a class that failed to load): the waiters must not hang on them.
			synchronized (this.lock) {
				this.attempt = null;
			}
			attempt.completeExceptionally(ex);
		}
	}

}
