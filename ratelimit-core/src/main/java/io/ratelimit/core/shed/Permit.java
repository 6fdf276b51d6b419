package io.ratelimit.core.shed;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A request's place under the concurrency limit, from admission until its response
 * completes. Release it exactly once, however the request ends (answer, exception, client
 * abort, asynchronous completion or timeout); a second release is ignored, so the paths
 * that may each see the end of one request can all call it.
 */
public final class Permit {

	private static final AtomicIntegerFieldUpdater<Permit> RELEASED = AtomicIntegerFieldUpdater
		.newUpdater(Permit.class, "released");

	private final LoadShedder shedder;

	private final Priority priority;

	private final long startNanos;

	private final int inFlightAtStart;

	private final boolean probing;

	private final boolean sampled;

	private volatile int released;

	Permit(LoadShedder shedder, Priority priority, long startNanos, int inFlightAtStart, boolean probing,
			boolean sampled) {
		this.shedder = shedder;
		this.priority = priority;
		this.startNanos = startNanos;
		this.inFlightAtStart = inFlightAtStart;
		this.probing = probing;
		this.sampled = sampled;
	}

	/**
	 * Gives the place back and, unless the completion is {@link Completion#IGNORED}, reports
	 * the request's latency to the adaptive limit.
	 * @param completion how the request ended
	 */
	public void release(Completion completion) {
		if (RELEASED.compareAndSet(this, 0, 1)) {
			this.shedder.release(this, completion);
		}
	}

	/**
	 * Returns the class the request was admitted in.
	 * @return the priority class
	 */
	public Priority priority() {
		return this.priority;
	}

	long startNanos() {
		return this.startNanos;
	}

	int inFlightAtStart() {
		return this.inFlightAtStart;
	}

	boolean admittedWhileProbing() {
		return this.probing;
	}

	/**
	 * Whether the request's latency may be a sample of the application's: not for a path no
	 * handler of the application serves (a static file, a 404), which any caller can ask
	 * for at will and which costs next to nothing.
	 */
	boolean sampled() {
		return this.sampled;
	}

}
