package io.ratelimit.core.concurrency;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.ratelimit.core.bucket.BucketKey;
import org.jspecify.annotations.Nullable;

/**
 * The permits of one replica, in memory. A key is in the map only while it holds a permit:
 * it is removed when its last permit is released, so nothing needs evicting, and the map
 * never evicts a key that holds permits (that would let its caller escape the limit).
 * <p>
 * The bound: the map holds at most one entry per request in progress, so its size is at
 * most the requests the server has in flight, and never more than {@code maximumKeys}. When
 * that many keys hold permits, a request of a key with none is refused (counted by
 * {@link #refusedForRoom()}) rather than admitted without a permit: a flood of invented
 * callers cannot grow the map, nor get past the limit.
 */
public final class LocalPermitStore implements PermitStore {

	private static final long NO_ROOM = -2;

	private final ConcurrentHashMap<BucketKey, Held> held = new ConcurrentHashMap<>();

	private final int maximumKeys;

	private final LongAdder permits = new LongAdder();

	private final LongAdder refusedForRoom = new LongAdder();

	private LocalPermitStore(int maximumKeys) {
		this.maximumKeys = maximumKeys;
	}

	/**
	 * Creates a store.
	 * @param maximumKeys the most keys holding permits at once, at least 1
	 * @return the store
	 */
	public static LocalPermitStore create(int maximumKeys) {
		if (maximumKeys < 1) {
			throw new IllegalArgumentException("maximumKeys must be at least 1, but was " + maximumKeys);
		}
		return new LocalPermitStore(maximumKeys);
	}

	@Override
	public @Nullable Permit tryAcquire(BucketKey key, int limit) {
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		long[] left = { -1 };
		// compute runs under the key's bin lock: the check and the increment are one step.
		this.held.compute(key, (k, current) -> {
			Held entry = current;
			if (entry == null) {
				if (this.held.size() >= this.maximumKeys) {
					left[0] = NO_ROOM;
					return null;
				}
				entry = new Held();
			}
			if (entry.count < limit) {
				entry.count++;
				left[0] = limit - entry.count;
			}
			return entry;
		});
		if (left[0] < 0) {
			if (left[0] == NO_ROOM) {
				this.refusedForRoom.increment();
			}
			return null;
		}
		this.permits.increment();
		return new LocalPermit(key, left[0]);
	}

	private void release(BucketKey key) {
		this.held.computeIfPresent(key, (k, entry) -> (--entry.count == 0) ? null : entry);
		this.permits.decrement();
	}

	@Override
	public long permitsHeld() {
		return this.permits.sum();
	}

	@Override
	public long keys() {
		return this.held.size();
	}

	@Override
	public long refusedForRoom() {
		return this.refusedForRoom.sum();
	}

	/**
	 * The permits of one key; changed only inside the map's atomic compute.
	 */
	private static final class Held {

		private int count;

	}

	private final class LocalPermit implements Permit {

		private final BucketKey key;

		private final long remaining;

		LocalPermit(BucketKey key, long remaining) {
			this.key = key;
			this.remaining = remaining;
		}

		@Override
		public long remaining() {
			return this.remaining;
		}

		@Override
		public void release() {
			LocalPermitStore.this.release(this.key);
		}

	}

}
