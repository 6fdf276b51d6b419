package io.ratelimit.core.shed;

import java.util.function.DoubleSupplier;
import java.util.function.LongConsumer;

/**
 * Re-measures the no-load latency now and then, as Envoy's adaptive concurrency filter
 * does: at jittered intervals the limit is pinned to its minimum until enough requests
 * admitted at that low concurrency have completed, and the fastest of them becomes the new
 * no-load latency.
 * <p>
 * Without it the no-load latency of a minimum-tracking algorithm only ever moves down: one
 * lucky sample, or a service that became slower for good, leaves the limit too low for
 * ever. The alternative some algorithms take, adopting the latest sample as the new
 * minimum, drifts up under sustained load, where every sample is queued: the limit then
 * grows into the overload it should prevent. Pinning the concurrency low is what makes the
 * sample a no-load one. The jitter keeps replicas from probing in step.
 */
final class MinRttProbe {

	private final long intervalNanos;

	private final double jitter;

	private final int samples;

	private final long maxDurationNanos;

	private final DoubleSupplier random;

	private final LongConsumer measured;

	private volatile long nextProbeAt;

	private volatile boolean probing;

	private volatile long startedAt;

	/** Guarded by this. */
	private long fastest;

	/** Guarded by this. */
	private int collected;

	MinRttProbe(long intervalNanos, double jitter, int samples, long maxDurationNanos, DoubleSupplier random,
			LongConsumer measured, long now) {
		this.intervalNanos = intervalNanos;
		this.jitter = jitter;
		this.samples = samples;
		this.maxDurationNanos = maxDurationNanos;
		this.random = random;
		this.measured = measured;
		this.nextProbeAt = now + delay();
	}

	/**
	 * Returns whether the limit is pinned to its minimum now, starting a probe when one is
	 * due and ending one that ran out of time.
	 */
	boolean pinned(long now) {
		if (this.probing) {
			if (now - this.startedAt < this.maxDurationNanos) {
				return true;
			}
			finish(now);
			return false;
		}
		if (now - this.nextProbeAt < 0) {
			return false;
		}
		start(now);
		return true;
	}

	/**
	 * Takes the latency of a request that was answered; only requests admitted during the
	 * current probe count towards it.
	 */
	void offer(Permit permit, long rttNanos, long now) {
		if (!this.probing || !permit.admittedWhileProbing()) {
			return;
		}
		synchronized (this) {
			if (!this.probing || permit.startNanos() - this.startedAt < 0) {
				return;
			}
			this.fastest = Math.min(this.fastest, rttNanos);
			if (++this.collected >= this.samples) {
				finish(now);
			}
		}
	}

	boolean isProbing() {
		return this.probing;
	}

	long nextProbeAt() {
		return this.nextProbeAt;
	}

	private synchronized void start(long now) {
		if (this.probing || now - this.nextProbeAt < 0) {
			return;
		}
		this.fastest = Long.MAX_VALUE;
		this.collected = 0;
		this.startedAt = now;
		this.probing = true;
	}

	private synchronized void finish(long now) {
		if (!this.probing) {
			return;
		}
		this.probing = false;
		this.nextProbeAt = now + delay();
		if (this.collected > 0) {
			// A probe that ran out of time without an answer keeps the last measurement.
			this.measured.accept(this.fastest);
		}
	}

	private long delay() {
		return this.intervalNanos + (long) (this.intervalNanos * this.jitter * this.random.getAsDouble());
	}

}
