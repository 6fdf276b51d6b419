package io.ratelimit.client;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The waiting line of one target: requests take permits from the target's {@link Pacing} in
 * the order they asked (a retry goes first: it asked before everyone behind it), each within
 * its deadline. The line never holds a thread: a waiter is a future, and a timer wakes the
 * line when the strategy's wait is over.
 */
final class Lane {

	private final Target target;

	private final Pacing pacing;

	private final PacingClock clock;

	private final ScheduledExecutorService scheduler;

	private final ReentrantLock lock = new ReentrantLock();

	private final Deque<Waiter> waiters = new ArrayDeque<>();

	private @Nullable ScheduledFuture<?> wakeUp;

	private long wakeAt;

	Lane(Target target, Pacing pacing, PacingClock clock, ScheduledExecutorService scheduler) {
		this.target = target;
		this.pacing = pacing;
		this.clock = clock;
		this.scheduler = scheduler;
	}

	CompletableFuture<Permit> acquire(Duration maxWait, boolean retry) {
		Waiter waiter = new Waiter(this.clock.nanoTime() + maxWait.toNanos(), maxWait);
		List<Runnable> completions;
		this.lock.lock();
		try {
			if (retry) {
				this.waiters.addFirst(waiter);
			}
			else {
				this.waiters.addLast(waiter);
			}
			completions = drain();
		}
		finally {
			this.lock.unlock();
		}
		run(completions);
		if (!waiter.future.isDone()) {
			waiter.timeout = this.scheduler.schedule(() -> expire(waiter), maxWait.toNanos(), TimeUnit.NANOSECONDS);
			// A caller that gives up (cancel, interrupt) leaves the line at once.
			waiter.future.whenComplete((permit, failure) -> {
				if (waiter.future.isCancelled()) {
					leave(waiter);
				}
			});
		}
		return waiter.future;
	}

	boolean isIdle() {
		this.lock.lock();
		try {
			return this.waiters.isEmpty();
		}
		finally {
			this.lock.unlock();
		}
	}

	void close(RuntimeException reason) {
		List<Waiter> dropped;
		this.lock.lock();
		try {
			dropped = new ArrayList<>(this.waiters);
			this.waiters.clear();
		}
		finally {
			this.lock.unlock();
		}
		dropped.forEach((waiter) -> waiter.future.completeExceptionally(reason));
	}

	private void feedback(Feedback feedback) {
		List<Runnable> completions;
		this.lock.lock();
		try {
			this.pacing.onFeedback(this.clock.nanoTime(), feedback);
			completions = drain();
		}
		finally {
			this.lock.unlock();
		}
		run(completions);
	}

	private void wake() {
		List<Runnable> completions;
		this.lock.lock();
		try {
			this.wakeUp = null;
			completions = drain();
		}
		finally {
			this.lock.unlock();
		}
		run(completions);
	}

	private void expire(Waiter waiter) {
		int position;
		this.lock.lock();
		try {
			position = indexOf(waiter);
			if (position < 0) {
				return;
			}
			this.waiters.remove(waiter);
		}
		finally {
			this.lock.unlock();
		}
		String reason = (position == 0) ? "the target's strategy still holds requests back"
				: position + " earlier requests are still waiting";
		waiter.future.completeExceptionally(new PacingTimeoutException(this.target, waiter.maxWait, reason));
		wake();
	}

	private void leave(Waiter waiter) {
		waiter.cancelTimeout();
		this.lock.lock();
		try {
			this.waiters.remove(waiter);
		}
		finally {
			this.lock.unlock();
		}
		wake();
	}

	/**
	 * Gives permits to the waiters at the head while the strategy allows, and sets the timer
	 * for the next one. Called under the lock; the futures are completed after it is
	 * released, so that no caller's code runs while the line is locked.
	 */
	private List<Runnable> drain() {
		List<Runnable> completions = new ArrayList<>();
		while (!this.waiters.isEmpty()) {
			Waiter head = this.waiters.peekFirst();
			if (head.future.isDone()) {
				this.waiters.pollFirst();
				continue;
			}
			long now = this.clock.nanoTime();
			long wait = this.pacing.tryAcquire(now);
			if (wait == 0) {
				this.waiters.pollFirst();
				TargetPermit permit = new TargetPermit();
				completions.add(() -> {
					head.cancelTimeout();
					if (!head.future.complete(permit)) {
						permit.complete(Feedback.noResponse());
					}
				});
				continue;
			}
			if (now + wait - head.deadline > 0) {
				// The strategy asks for more than the deadline allows: fail now rather than later.
				this.waiters.pollFirst();
				Duration needed = Duration.ofNanos(wait);
				completions.add(() -> {
					head.cancelTimeout();
					head.future.completeExceptionally(new PacingTimeoutException(this.target, head.maxWait,
							"the target's strategy holds requests back for another " + needed));
				});
				continue;
			}
			schedule(now, wait);
			break;
		}
		return completions;
	}

	private void schedule(long now, long wait) {
		long at = now + wait;
		if (this.wakeUp != null && !this.wakeUp.isDone() && this.wakeAt - at <= 0) {
			return;
		}
		if (this.wakeUp != null) {
			this.wakeUp.cancel(false);
		}
		this.wakeAt = at;
		this.wakeUp = this.scheduler.schedule(this::wake, wait, TimeUnit.NANOSECONDS);
	}

	private int indexOf(Waiter waiter) {
		int index = 0;
		for (Waiter each : this.waiters) {
			if (each == waiter) {
				return index;
			}
			index++;
		}
		return -1;
	}

	private static void run(List<Runnable> completions) {
		completions.forEach(Runnable::run);
	}

	private final class TargetPermit implements Permit {

		private final AtomicBoolean completed = new AtomicBoolean();

		@Override
		public Target target() {
			return Lane.this.target;
		}

		@Override
		public void complete(Feedback feedback) {
			if (this.completed.compareAndSet(false, true)) {
				feedback(feedback);
			}
		}

	}

	private static final class Waiter {

		private final CompletableFuture<Permit> future = new CompletableFuture<>();

		private final long deadline;

		private final Duration maxWait;

		private volatile @Nullable ScheduledFuture<?> timeout;

		Waiter(long deadline, Duration maxWait) {
			this.deadline = deadline;
			this.maxWait = maxWait;
		}

		void cancelTimeout() {
			ScheduledFuture<?> timeout = this.timeout;
			if (timeout != null) {
				timeout.cancel(false);
			}
		}

	}

}
