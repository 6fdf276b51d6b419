package io.ratelimit.core;

import java.util.concurrent.atomic.AtomicBoolean;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.concurrency.Permit;
import org.jspecify.annotations.Nullable;

/**
 * The permits an admitted request holds under its in-flight limits, until the web
 * integration tells that its response completed: normally, with an exception, by a client
 * abort, or, for an asynchronous request, when the asynchronous processing ends. Released
 * once; later calls do nothing, so every path that may end a request can call
 * {@link #release()} safely.
 * <p>
 * A limit in shadow mode takes its permit like the others, when there is one, and gives it
 * back the same way; when it has none, the request passes anyway and is counted as
 * {@link Decision.Outcome#SHADOW_REJECTED}.
 */
public final class HeldPermits {

	/** No enforced limit refused. */
	private static final int NONE = -1;

	private final ChargeLayout layout;

	private final @Nullable Permit[] permits;

	private final int refusedBy;

	private final boolean refusedShadow;

	private final AtomicBoolean released = new AtomicBoolean();

	private HeldPermits(ChargeLayout layout, @Nullable Permit[] permits, int refusedBy, boolean refusedShadow) {
		this.layout = layout;
		this.permits = permits;
		this.refusedBy = refusedBy;
		this.refusedShadow = refusedShadow;
	}

	/**
	 * Takes a permit under every in-flight limit of a layout, all or nothing for the
	 * enforced ones: when one refuses, those taken are given back at once, and the result
	 * holds none.
	 * @param layout the limits
	 * @param keys the client's keys, the in-flight limits' from {@code firstKey} on
	 * @param firstKey the place of the first in-flight limit's key
	 * @return what was taken; {@link #refused()} says whether an enforced limit refused
	 */
	static HeldPermits acquire(ChargeLayout layout, BucketKey[] keys, int firstKey) {
		@Nullable Permit[] permits = new Permit[layout.inFlightCount()];
		int refusedBy = NONE;
		boolean refusedShadow = false;
		try {
			for (int i = 0; i < permits.length && refusedBy == NONE; i++) {
				permits[i] = layout.inFlightStore(i).tryAcquire(keys[firstKey + i], layout.inFlightLimit(i));
				if (permits[i] == null) {
					if (layout.inFlightEnforced(i)) {
						refusedBy = i;
					}
					else {
						refusedShadow = true;
					}
				}
			}
		}
		catch (RuntimeException ex) {
			// A store that fails halfway must not keep the permits taken before it.
			releaseAll(permits);
			throw ex;
		}
		HeldPermits held = new HeldPermits(layout, permits, refusedBy, refusedShadow);
		if (refusedBy != NONE) {
			held.release();
		}
		return held;
	}

	/** Whether an enforced in-flight limit refused: then no permit is held. */
	boolean refused() {
		return this.refusedBy != NONE;
	}

	/** The in-flight limit that refused, if {@link #refused()}. */
	int refusedBy() {
		return this.refusedBy;
	}

	/** Whether an in-flight limit in shadow mode had no permit for the request. */
	boolean refusedShadow() {
		return this.refusedShadow;
	}

	/** The permits left under an in-flight limit when its permit was taken; 0 if none was. */
	long remaining(int limit) {
		Permit permit = this.permits[limit];
		return (permit != null) ? permit.remaining() : 0;
	}

	/**
	 * Gives every permit back. Only the first call does anything.
	 */
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			releaseAll(this.permits);
		}
	}

	private static void releaseAll(@Nullable Permit[] permits) {
		RuntimeException failure = null;
		for (Permit permit : permits) {
			if (permit == null) {
				continue;
			}
			try {
				permit.release();
			}
			catch (RuntimeException ex) {
				// One store failing to take its permit back must not keep the others'.
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Returns whether the permits were given back.
	 * @return whether {@link #release()} ran
	 */
	public boolean isReleased() {
		return this.released.get();
	}

	/**
	 * Returns the names of the in-flight limits, never a key.
	 */
	@Override
	public String toString() {
		StringBuilder names = new StringBuilder();
		for (int i = 0; i < this.layout.inFlightCount(); i++) {
			names.append((i > 0) ? ", " : "").append(this.layout.inFlightName(i));
		}
		return "HeldPermits[" + names + ", released=" + this.released.get() + "]";
	}

}
