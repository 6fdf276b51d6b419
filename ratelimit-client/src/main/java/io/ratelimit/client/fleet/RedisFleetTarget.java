package io.ratelimit.client.fleet;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * What one process knows of the fleet of one target: the aggregate last read from Redis,
 * and the refusals heard of since. Read on the request path, so everything here answers
 * from memory.
 */
final class RedisFleetTarget {

	/** How many windows of heard refusals are kept: the current one and the two before. */
	private static final int HEARD_WINDOWS = 3;

	private final String tag;

	private final Map<Long, Set<String>> heard = new ConcurrentHashMap<>();

	private final AtomicBoolean refreshing = new AtomicBoolean();

	private volatile @Nullable Aggregate aggregate;

	private volatile long refreshSlot = Long.MIN_VALUE;

	private volatile long usedAt;

	RedisFleetTarget(String tag) {
		this.tag = tag;
	}

	String tag() {
		return this.tag;
	}

	void used(long nowMillis) {
		this.usedAt = nowMillis;
	}

	long usedAt() {
		return this.usedAt;
	}

	/**
	 * Records a refusal, told by this process or heard from another.
	 * @param window the window of the refusal
	 * @param clientId the refused client
	 */
	void hear(long window, String clientId) {
		this.heard.computeIfAbsent(window, (key) -> ConcurrentHashMap.newKeySet()).add(clientId);
		this.heard.keySet().removeIf((old) -> old <= window - HEARD_WINDOWS);
	}

	/**
	 * Returns the aggregate with the refusals heard since its window.
	 * @param nowMillis the wall time
	 * @param windowMillis the window length
	 * @return the view, or {@code null} when nothing is known or the aggregate was read more
	 * than two windows ago
	 */
	@Nullable FleetView view(long nowMillis, long windowMillis) {
		Aggregate last = this.aggregate;
		if (last == null || nowMillis - last.readAt() > 2 * windowMillis) {
			return null;
		}
		Set<String> congested = last.congested();
		for (Map.Entry<Long, Set<String>> window : this.heard.entrySet()) {
			if (window.getKey() > last.window() && !congested.containsAll(window.getValue())) {
				if (congested == last.congested()) {
					congested = new HashSet<>(congested);
				}
				congested.addAll(window.getValue());
			}
		}
		if (last.clients() == 0 && congested.isEmpty()) {
			return null;
		}
		return new FleetView((int) Math.min(Integer.MAX_VALUE, last.clients()), last.requests(), congested.size());
	}

	/**
	 * Claims the refresh of a slot: at most one per slot, and one at a time.
	 * @param slot the slot of the wall time
	 * @return whether the caller should refresh
	 */
	boolean startRefresh(long slot) {
		if (this.refreshSlot == slot || !this.refreshing.compareAndSet(false, true)) {
			return false;
		}
		this.refreshSlot = slot;
		return true;
	}

	/**
	 * Ends a refresh.
	 * @param fresh what Redis answered, or {@code null} when it did not
	 */
	void refreshed(@Nullable Aggregate fresh) {
		if (fresh != null) {
			this.aggregate = fresh;
		}
		this.refreshing.set(false);
	}

	/**
	 * What Redis held for one window of a target.
	 *
	 * @param window the window
	 * @param clients the clients that reported in it
	 * @param requests the requests they reported
	 * @param congested the clients refused in it or in the window after, as far as read
	 * @param readAt the wall time the read started
	 */
	record Aggregate(long window, long clients, long requests, Set<String> congested, long readAt) {
	}

}
