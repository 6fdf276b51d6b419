package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.api.StatefulConnection;

/**
 * A connection whose commands are written in batches: commands issued on it wait in
 * Lettuce's buffer ({@code setAutoFlushCommands(false)}) until a flush writes them all at
 * once, so the calls of many keys travel to Redis in one network write and their answers
 * come back together: one round trip for all of them.
 * <p>
 * A flush happens one {@code window} after the first command that found the buffer empty,
 * or at once when {@code maximumCommands} are waiting. Nothing waits longer than the window
 * for its write, and an idle connection costs no wake-ups. The commands still time out
 * after the client's command timeout, counted from when they were issued.
 * <p>
 * On a cluster connection every node's commands are flushed together; each command still
 * goes to the node of its key's slot, and every script names one key, so no script spans
 * two slots.
 */
final class CommandPipeline implements AutoCloseable {

	private final StatefulConnection<byte[], byte[]> connection;

	private final long windowNanos;

	private final int maximumCommands;

	private final AtomicLong issued = new AtomicLong();

	/** The commands issued when the last flush started; written under {@code this}. */
	private volatile long flushedUpTo;

	private final LongAdder flushes = new LongAdder();

	private final Thread flusher;

	private volatile boolean closed;

	/**
	 * Creates a pipeline and starts its flusher thread.
	 * @param connection a connection of its own, which the pipeline stops flushing by itself
	 * and closes with itself
	 * @param window the longest a command waits for its write
	 * @param maximumCommands the commands that are written at once, without waiting
	 * @param name the flusher thread's name
	 */
	CommandPipeline(StatefulConnection<byte[], byte[]> connection, Duration window, int maximumCommands,
			String name) {
		this.connection = connection;
		this.windowNanos = window.toNanos();
		this.maximumCommands = maximumCommands;
		connection.setAutoFlushCommands(false);
		this.flusher = new Thread(this::flushWhenDue, name);
		this.flusher.setDaemon(true);
		this.flusher.start();
	}

	/**
	 * Records a command issued on the connection (called after issuing it, so that a flush
	 * that this starts carries it).
	 */
	void issued() {
		long issued = this.issued.incrementAndGet();
		long waiting = issued - this.flushedUpTo;
		if (waiting >= this.maximumCommands) {
			flush();
		}
		else if (waiting == 1) {
			LockSupport.unpark(this.flusher);
		}
	}

	/**
	 * Records a command issued on the connection that must not wait for others, and writes
	 * it with whatever waits.
	 */
	void issuedUrgently() {
		this.issued.incrementAndGet();
		flush();
	}

	/**
	 * Returns the flushes that wrote commands: the round trips to Redis.
	 * @return the count
	 */
	long roundTrips() {
		return this.flushes.sum();
	}

	/**
	 * Returns the commands issued on the connection.
	 * @return the count
	 */
	long commands() {
		return this.issued.get();
	}

	private void flushWhenDue() {
		while (!this.closed) {
			if (this.issued.get() == this.flushedUpTo) {
				LockSupport.park(this);
				continue;
			}
			// Waits out the whole window: the wake-up of the command that found the buffer
			// empty may arrive while this waits already.
			long due = System.nanoTime() + this.windowNanos;
			long left;
			while (!this.closed && (left = due - System.nanoTime()) > 0) {
				LockSupport.parkNanos(this, left);
			}
			flush();
		}
	}

	private synchronized void flush() {
		long issued = this.issued.get();
		if (issued != this.flushedUpTo) {
			this.flushedUpTo = issued;
			this.flushes.increment();
			this.connection.flushCommands();
		}
	}

	/** Writes what is waiting, stops the flusher and closes the connection. */
	@Override
	public void close() {
		this.closed = true;
		LockSupport.unpark(this.flusher);
		flush();
		this.connection.close();
	}

}
