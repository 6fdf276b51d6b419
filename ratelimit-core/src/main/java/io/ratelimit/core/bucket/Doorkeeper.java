package io.ratelimit.core.bucket;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Remembers the first request of keys that have no bucket, so that a key gets a bucket only
 * when its next request comes before the bucket would have refilled what the first took.
 * Until then the bucket would be full again, and a full bucket's answer needs no state: a
 * client that invents a new address for every request, or one that stays well within its
 * limit, never reaches the bucket cache. It neither pays for creating and evicting a bucket
 * on every request nor pushes other clients' buckets out.
 * <p>
 * The answer to a first request is the one a new, full bucket gives, and the bucket the next
 * request creates is charged for the first at the time it was made (rounded up to 16
 * microseconds, so never credited with refill it did not have): the count is the one a
 * bucket created by the first request would keep.
 * <p>
 * One slot per key hash holds a fingerprint of the key and its first request's time and
 * tokens, until the bucket would have refilled them. A key whose slot holds another key's
 * first request meanwhile gets its bucket at once, as without a doorkeeper, so no request is
 * forgotten before it is refilled, however keys share slots. (Only a key whose slot and
 * 22-bit fingerprint both match another's, a chance of one in four million for a key that
 * finds a waiting first request in its slot, is charged for the other's request, which the
 * other then no longer owes.) Every change of a slot is a compare-and-set, as keys that
 * share it may change it at once; the store calls it for a key only under the lock of the
 * key's cache entry. Clocks read by different threads may reach a slot out of order, so a
 * first request that seems to come from the future is taken as just made.
 */
final class Doorkeeper {

	// A slot: 23 bits of the key's fingerprint (the lowest always set, so that an empty slot
	// belongs to no key), 28 bits of the first request's time in ticks
	// of 16.4 microseconds (2^14 ns), 12 bits of its tokens. The sign bit is clear, so that
	// the sentinels below are negative.
	private static final int TOKEN_BITS = 12;

	private static final int TIME_BITS = 28;

	private static final int TICK_SHIFT = 14;

	private static final int FINGERPRINT_SHIFT = TOKEN_BITS + TIME_BITS;

	private static final long TOKEN_MASK = (1L << TOKEN_BITS) - 1;

	private static final long TIME_MASK = (1L << TIME_BITS) - 1;

	private static final long FINGERPRINT_MASK = (1L << (63 - FINGERPRINT_SHIFT)) - 1;

	private static final long FINGERPRINT_BITS = -1L << FINGERPRINT_SHIFT;

	/** The tokens of a slot whose key's first request was charged to its bucket. */
	private static final long CHARGED = 0;

	/** The most tokens a first request may take here; a heavier one creates its bucket. */
	static final long MAXIMUM_TOKENS = TOKEN_MASK;

	/**
	 * The longest refill period of a bucket whose first request may wait here: half the
	 * range of the times, 36 minutes, as the other half stands for times ahead of the clock.
	 * A bucket that refills more slowly is created by the first request.
	 */
	static final long MAXIMUM_REFILL_PERIOD_NANOS = (TIME_MASK >>> 1) << TICK_SHIFT;

	/** The most slots, 32 MiB. */
	private static final int MAXIMUM_SLOTS = 1 << 22;

	/** What {@link #enter} answers for a request that is the key's first. */
	static final long FIRST_REQUEST = -1;

	/** What {@link #enter} answers when the key's bucket is to be created without a charge. */
	static final long NOTHING_TO_CHARGE = -2;

	private final AtomicLongArray slots;

	private final int mask;

	private final long originNanos;

	/**
	 * Creates a doorkeeper with a slot per bucket the store holds, rounded up to a power of
	 * two.
	 * @param maximumEntries the most buckets of the store
	 * @param originNanos the clock's reading now, from which times are counted
	 */
	Doorkeeper(long maximumEntries, long originNanos) {
		int size = Integer.highestOneBit((int) Math.max(2, Math.min(MAXIMUM_SLOTS, maximumEntries) - 1)) << 1;
		this.slots = new AtomicLongArray(size);
		this.mask = size - 1;
		this.originNanos = originNanos;
	}

	/**
	 * Lets a request of a key without a bucket in: records it as the key's first request, or
	 * tells what the key's new bucket is to be charged for.
	 * @param key the key
	 * @param tokens the request's tokens, at most {@link #MAXIMUM_TOKENS}
	 * @param nowNanos the clock's reading
	 * @param limits the key's limits, whose refill period is at most
	 * {@link #MAXIMUM_REFILL_PERIOD_NANOS}
	 * @return {@link #FIRST_REQUEST}, to be answered as by a full bucket without creating
	 * one; {@link #NOTHING_TO_CHARGE}; or the first request to charge the new bucket for, to
	 * be read with {@link #tokensOf} and {@link #nanosOf}
	 */
	long enter(BucketKey key, long tokens, long nowNanos, BucketLimits limits) {
		int index = indexOf(key);
		long fingerprint = fingerprint(key);
		long now = ticks(nowNanos);
		while (true) {
			long slot = this.slots.get(index);
			boolean own = (slot & FINGERPRINT_BITS) == fingerprint;
			if (own && (slot & TOKEN_MASK) == CHARGED) {
				// The key had a bucket, which is gone.
				return NOTHING_TO_CHARGE;
			}
			if (isWaiting(slot, now, limits)) {
				if (!own) {
					return NOTHING_TO_CHARGE;
				}
				if (this.slots.compareAndSet(index, slot, fingerprint | CHARGED)) {
					return slot;
				}
				continue;
			}
			if (this.slots.compareAndSet(index, slot, fingerprint | (now & TIME_MASK) << TOKEN_BITS | tokens)) {
				return FIRST_REQUEST;
			}
		}
	}

	/**
	 * Takes the key's first request, whatever its age, for a bucket created without asking
	 * {@link #enter}: the bucket is charged for it rather than the request forgotten.
	 * @param key the key
	 * @return the first request to charge the new bucket for, or {@link #NOTHING_TO_CHARGE}
	 */
	long takeFirstRequest(BucketKey key) {
		int index = indexOf(key);
		long fingerprint = fingerprint(key);
		while (true) {
			long slot = this.slots.get(index);
			if (!holdsFirstRequest(slot, fingerprint)) {
				return NOTHING_TO_CHARGE;
			}
			if (this.slots.compareAndSet(index, slot, fingerprint | CHARGED)) {
				return slot;
			}
		}
	}

	/**
	 * Whether a slot holds a first request that the bucket would not have refilled yet. The
	 * time since is counted one tick short, as both ends were rounded up; a first request
	 * ahead of the clock is waiting.
	 */
	private static boolean isWaiting(long slot, long now, BucketLimits limits) {
		long tokens = slot & TOKEN_MASK;
		if (tokens == CHARGED) {
			return false;
		}
		long units = Math.min(tokens * BucketLimits.UNITS_PER_TOKEN, limits.capacityUnits());
		return (elapsedTicks(slot, now) - 1) << TICK_SHIFT < limits.nanosToRefill(units);
	}

	/**
	 * Returns the tokens of a first request to charge.
	 * @param firstRequest what {@link #enter} answered
	 * @return the tokens
	 */
	static long tokensOf(long firstRequest) {
		return firstRequest & TOKEN_MASK;
	}

	/**
	 * Returns the time of a first request to charge, never before the request was made.
	 * @param firstRequest what {@link #enter} answered
	 * @param nowNanos the clock's reading
	 * @return the time on the clock, at most {@code nowNanos}
	 */
	long nanosOf(long firstRequest, long nowNanos) {
		long now = ticks(nowNanos);
		long elapsed = Math.max(0, elapsedTicks(firstRequest, now));
		return Math.min(nowNanos, this.originNanos + ((now - elapsed) << TICK_SHIFT));
	}

	/**
	 * Gives back tokens of a key's first request, when the request was refused by another
	 * bucket: the first request then takes only what is left, or is forgotten.
	 * @param key the key
	 * @param tokens the tokens to give back
	 */
	void refund(BucketKey key, long tokens) {
		int index = indexOf(key);
		long fingerprint = fingerprint(key);
		long slot = this.slots.get(index);
		while (holdsFirstRequest(slot, fingerprint)) {
			long left = (slot & TOKEN_MASK) - Math.min(tokens, slot & TOKEN_MASK);
			long refunded = (left == 0) ? 0 : (slot & ~TOKEN_MASK) | left;
			if (this.slots.compareAndSet(index, slot, refunded)) {
				return;
			}
			slot = this.slots.get(index);
		}
	}

	/**
	 * The clock's reading in ticks since the origin, rounded up: a first request is then
	 * charged no earlier than it was made, so that the bucket is never credited with refill
	 * it did not have.
	 */
	private long ticks(long nowNanos) {
		return -((this.originNanos - nowNanos) >> TICK_SHIFT);
	}

	/**
	 * The ticks since a slot's first request, negative for a request ahead of the clock.
	 * Times wrap every 73 minutes, so a first request more than 36 minutes old may look
	 * recent or ahead, which charges the key's new bucket for it, in the client's
	 * disfavour.
	 */
	private static long elapsedTicks(long slot, long now) {
		int unused = Long.SIZE - TIME_BITS;
		return ((now - (slot >>> TOKEN_BITS)) << unused) >> unused;
	}

	private int indexOf(BucketKey key) {
		return (int) key.low() & this.mask;
	}

	/** Whether a slot holds a first request, not yet charged, of the key of a fingerprint. */
	private static boolean holdsFirstRequest(long slot, long fingerprint) {
		return (slot & FINGERPRINT_BITS) == fingerprint && (slot & TOKEN_MASK) != CHARGED;
	}

	/**
	 * The key's fingerprint, in the high bits of a slot. Never zero, so that an empty slot
	 * belongs to no key.
	 */
	private static long fingerprint(BucketKey key) {
		return ((key.high() | 1) & FINGERPRINT_MASK) << FINGERPRINT_SHIFT;
	}

}
