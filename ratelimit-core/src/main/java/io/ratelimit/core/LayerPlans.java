package io.ratelimit.core;

import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LayerPlan}s of recent (endpoint, tenant) pairs under the current policy
 * snapshot, so that a request under layered limits resolves its limits and sizes their
 * buckets once per pair rather than once per request.
 * <p>
 * The table is direct-mapped with no eviction policy, as the table of recent bucket keys:
 * a pair takes its slot from whichever pair had it, and a pair whose slot was taken is
 * planned again, which costs what every request cost without the table. A new snapshot
 * starts a new table, so that no plan outlives the policies it was made from and the table
 * holds no snapshot but the current one.
 */
final class LayerPlans {

	/** Slots of the table, a power of two. */
	static final int SLOTS = 1024;

	/*
	 * Slots are read and written without synchronization: an entry is immutable (final
	 * fields, so safely published even through a race), and a lost or overwritten entry
	 * only costs planning again.
	 */
	private final Planner planner;

	private volatile Table table = new Table(null);

	/**
	 * @param planner makes the plan of a pair none is remembered for
	 */
	LayerPlans(Planner planner) {
		this.planner = planner;
	}

	/**
	 * Returns the plan of a pair under a snapshot, planning it if no plan is remembered.
	 * @param snapshot the policies in force
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @return the plan
	 */
	LayerPlan planFor(PolicySnapshot snapshot, EndpointTemplate endpoint, @Nullable String tenant) {
		Table table = this.table;
		if (table.snapshot != snapshot) {
			table = new Table(snapshot);
			this.table = table;
		}
		int hash = 31 * endpoint.hashCode() + Objects.hashCode(tenant);
		int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
		Entry entry = table.entries[slot];
		if (entry != null && entry.endpoint.equals(endpoint) && Objects.equals(entry.tenant, tenant)) {
			return entry.plan;
		}
		LayerPlan plan = this.planner.plan(snapshot, endpoint, tenant);
		table.entries[slot] = new Entry(endpoint, tenant, plan);
		return plan;
	}

	/**
	 * Makes the plan of a pair under a snapshot.
	 */
	@FunctionalInterface
	interface Planner {

		LayerPlan plan(PolicySnapshot snapshot, EndpointTemplate endpoint, @Nullable String tenant);

	}

	private static final class Table {

		private final @Nullable PolicySnapshot snapshot;

		private final Entry[] entries = new Entry[SLOTS];

		Table(@Nullable PolicySnapshot snapshot) {
			this.snapshot = snapshot;
		}

	}

	private record Entry(EndpointTemplate endpoint, @Nullable String tenant, LayerPlan plan) {
	}

}
