package io.ratelimit.autoconfigure.inflightapp;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * What the slow handlers wait on, opened by the test: the requests in progress are exactly
 * those the test has not let go yet.
 */
public final class SlowHandlers {

	private static final Semaphore entered = new Semaphore(0);

	private static volatile CountDownLatch gate = new CountDownLatch(1);

	private static final Queue<DeferredResult<String>> pending = new ConcurrentLinkedQueue<>();

	private SlowHandlers() {
	}

	/** Closes the gate: slow handlers from now on wait until {@link #open()}. */
	public static void close() {
		entered.drainPermits();
		gate = new CountDownLatch(1);
	}

	/** Lets every waiting handler go, and completes every pending asynchronous one. */
	public static void open() {
		gate.countDown();
		DeferredResult<String> result;
		while ((result = pending.poll()) != null) {
			result.setResult("done");
		}
	}

	/**
	 * Waits until so many handlers have entered since the gate was closed.
	 * @param count the handlers
	 * @return whether they did within ten seconds
	 */
	public static boolean awaitEntered(int count) throws InterruptedException {
		if (!entered.tryAcquire(count, 10, TimeUnit.SECONDS)) {
			return false;
		}
		entered.release(count);
		return true;
	}

	/** How many handlers entered since the gate was closed. */
	public static int entered() {
		return entered.availablePermits();
	}

	static void enterAndWait() throws InterruptedException {
		CountDownLatch current = gate;
		entered.release();
		current.await(30, TimeUnit.SECONDS);
	}

	/** As {@link #enterAndWait()}, but carries on when interrupted, as a task that ignores it. */
	static void enterAndWaitThroughInterrupts() {
		CountDownLatch current = gate;
		entered.release();
		boolean interrupted = false;
		while (true) {
			try {
				current.await(30, TimeUnit.SECONDS);
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	static DeferredResult<String> defer(long timeoutMillis) {
		DeferredResult<String> result = new DeferredResult<>(timeoutMillis);
		// Pending before entered: a test that saw it enter and opens the gate completes it.
		if (timeoutMillis > 1000) {
			pending.add(result);
		}
		entered.release();
		return result;
	}

}
