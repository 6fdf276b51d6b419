package io.ratelimit.core.bucket;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The background work of a {@link LeasedBucketStore}: refills of leases, and returns of
 * leases to the shared bucket, in two bounded queues run by one executor, refills first.
 * <p>
 * A refill keeps a hot key's requests admitted; a return only hands back tokens that the
 * shared bucket refills anyway in time. So a refill never waits behind returns, however many
 * idle keys of a churning population are waiting to give theirs back, and when the queues
 * are full a return is dropped (its tokens lost, within the bound the store documents) and a
 * refill is refused (the key asks again at its next request). The executor is handed one
 * "start the most urgent call" per queued call, never the call itself, so its own queue holds
 * no more than the two bounds.
 * <p>
 * A call may answer later than it starts: a shared store that pipelines the calls of many
 * keys over one connection returns at once and completes when Redis answers. At most
 * {@code capacity} calls are in flight; the next queued one starts when one of them ends.
 */
final class LeaseWork {

	private final Executor executor;

	private final int capacity;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition idle = this.lock.newCondition();

	private final ArrayDeque<Call> refills = new ArrayDeque<>();

	private final ArrayDeque<Call> returns = new ArrayDeque<>();

	private final LongAdder droppedReturns = new LongAdder();

	/** Calls in flight. */
	private int running;

	/** Starts put off because {@code capacity} calls were in flight. */
	private int deferred;

	private boolean closing;

	LeaseWork(Executor executor, int capacity) {
		this.executor = executor;
		this.capacity = capacity;
	}

	/** Queues a refill; {@code false} when the queue is full or the store closes. */
	boolean refill(Call task) {
		return offer(this.refills, task, false);
	}

	/** Queues a return; dropped (and counted) when the queue is full. */
	void giveBack(Call task) {
		if (!offer(this.returns, task, false)) {
			this.droppedReturns.increment();
		}
	}

	/** Queues a return at close: not bounded, the close deadline is. */
	void giveBackAtClose(Call task) {
		if (!offer(this.returns, task, true)) {
			this.droppedReturns.increment();
		}
	}

	/** The calls queued or in flight. */
	int pending() {
		this.lock.lock();
		try {
			return this.running + this.refills.size() + this.returns.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	long droppedReturns() {
		return this.droppedReturns.sum();
	}

	/** Refuses refills from now on. */
	void closing() {
		this.lock.lock();
		try {
			this.closing = true;
			this.refills.clear();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until nothing is queued or running, or the deadline; drops what is still queued
	 * then. Returns whether everything ran.
	 */
	boolean awaitIdle(Duration deadline) {
		// A real wait: the store's clock may be a test's, which no one advances meanwhile.
		long deadlineNanos = System.nanoTime() + deadline.toNanos();
		this.lock.lock();
		try {
			long left;
			while (this.running + this.refills.size() + this.returns.size() > 0
					&& (left = deadlineNanos - System.nanoTime()) > 0) {
				try {
					this.idle.awaitNanos(left);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			boolean done = this.running + this.refills.size() + this.returns.size() == 0;
			this.droppedReturns.add(this.returns.size());
			this.returns.clear();
			this.refills.clear();
			return done;
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean offer(ArrayDeque<Call> queue, Call task, boolean unbounded) {
		this.lock.lock();
		try {
			if ((queue == this.refills && this.closing) || (!unbounded && queue.size() >= this.capacity)) {
				return false;
			}
			queue.add(task);
		}
		finally {
			this.lock.unlock();
		}
		try {
			this.executor.execute(this::runNext);
			return true;
		}
		catch (RejectedExecutionException ex) {
			this.lock.lock();
			try {
				queue.removeLastOccurrence(task);
			}
			finally {
				this.lock.unlock();
			}
			return false;
		}
	}

	private void runNext() {
		Call task;
		this.lock.lock();
		try {
			if (this.running >= this.capacity) {
				this.deferred++; // the next call to end starts it
				return;
			}
			task = this.refills.poll();
			if (task == null) {
				task = this.returns.poll();
			}
			if (task == null) {
				return; // dropped at the close deadline, or started by a call that ended
			}
			this.running++;
		}
		finally {
			this.lock.unlock();
		}
		CompletionStage<?> call;
		try {
			call = task.start();
		}
		catch (RuntimeException | Error ex) {
			ended();
			throw ex;
		}
		call.whenComplete((result, failure) -> ended());
	}

	private void ended() {
		boolean more;
		this.lock.lock();
		try {
			this.running--;
			this.idle.signalAll();
			more = this.deferred > 0 && (!this.refills.isEmpty() || !this.returns.isEmpty());
			if (more) {
				this.deferred--;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (more) {
			try {
				this.executor.execute(this::runNext);
			}
			catch (RejectedExecutionException ex) {
				// Closed: what is still queued is dropped at the close deadline.
			}
		}
	}

	/**
	 * One call to the shared store: started on the executor, in flight until its stage
	 * completes.
	 */
	@FunctionalInterface
	interface Call {

		/**
		 * Starts the call.
		 * @return its completion; failures are the call's own to handle
		 */
		CompletionStage<?> start();

	}

}
