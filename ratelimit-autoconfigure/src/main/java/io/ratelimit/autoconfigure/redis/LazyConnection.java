package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.lettuce.core.RedisConnectionException;
import org.jspecify.annotations.Nullable;

/**
 * A connection to Redis opened on first use, by the first request that needs it. Requests
 * that arrive while it is being opened wait for that attempt only, and fail with it. When
 * Redis hangs, an attempt lasts about a timeout: each request then waits for one attempt at
 * most, not for one attempt each in turn, which would keep the last of a queue of requests
 * waiting for minutes. Once open, the connection stays: Lettuce reconnects by itself.
 *
 * @param <C> what opening produces
 */
final class LazyConnection<C> {

	// Not a monitor: opening waits for the network, and on JDK 21 to 23 a virtual thread
	// that waits inside a monitor, or for one, pins its carrier thread.
	private final ReentrantLock opening = new ReentrantLock();

	private final Supplier<C> open;

	private final Duration attemptLimit;

	/** Attempts that failed: a request that waited for one fails with it. */
	private final AtomicLong failedAttempts = new AtomicLong();

	private volatile @Nullable C connection;

	/**
	 * Creates a connection not opened yet.
	 * @param open opens it, or throws if Redis cannot be reached
	 * @param attemptLimit the longest an attempt can take (a connect and a handshake, each
	 * bounded by the timeout); a request waits no longer for another's
	 */
	LazyConnection(Supplier<C> open, Duration attemptLimit) {
		this.open = Objects.requireNonNull(open, "open must not be null");
		this.attemptLimit = Objects.requireNonNull(attemptLimit, "attemptLimit must not be null");
	}

	/**
	 * Returns the connection if it is open.
	 * @return the connection, or {@code null} before it is opened
	 */
	@Nullable C ifOpen() {
		return this.connection;
	}

	/**
	 * Returns the connection, opening it if it is not open yet.
	 * @return the connection
	 * @throws RuntimeException if this request's attempt failed, or the one it waited for
	 */
	C get() {
		C current = this.connection;
		if (current != null) {
			return current;
		}
		long failedBefore = this.failedAttempts.get();
		lock();
		try {
			current = this.connection;
			if (current == null) {
				if (this.failedAttempts.get() != failedBefore) {
					throw new RedisConnectionException("Connecting to Redis failed while this request waited for it");
				}
				try {
					current = this.open.get();
				}
				catch (RuntimeException ex) {
					this.failedAttempts.incrementAndGet();
					throw ex;
				}
				this.connection = current;
			}
			return current;
		}
		finally {
			this.opening.unlock();
		}
	}

	private void lock() {
		try {
			if (!this.opening.tryLock(this.attemptLimit.toNanos(), TimeUnit.NANOSECONDS)) {
				throw new RedisConnectionException("Still connecting to Redis after " + this.attemptLimit);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionException("Interrupted while waiting for the connection to Redis", ex);
		}
	}

}
