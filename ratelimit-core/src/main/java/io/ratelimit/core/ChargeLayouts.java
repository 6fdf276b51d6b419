package io.ratelimit.core;

import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ChargeLayout}s of recent (endpoint, tenant, plan) triples under the current
 * policy snapshot, so that a request under layered limits resolves its limits and sizes
 * their buckets once per triple rather than once per request.
 * <p>
 * The table is direct-mapped with no eviction policy, as the table of recent bucket keys:
 * a triple takes its slot from whichever had it, and a triple whose slot was taken is laid
 * out again, which costs what every request cost without the table. A new snapshot
 * starts a new table, so that no layout outlives the policies it was made from and the table
 * holds no snapshot but the current one.
 */
final class ChargeLayouts {

	/** Slots of the table, a power of two. */
	static final int SLOTS = 1024;

	/*
	 * Slots are read and written without synchronization: an entry is immutable (final
	 * fields, so safely published even through a race), and a lost or overwritten entry
	 * only costs laying out again.
	 */
	private final Maker maker;

	private volatile Table table = new Table(null);

	/**
	 * @param maker makes the layout of a triple none is remembered for
	 */
	ChargeLayouts(Maker maker) {
		this.maker = maker;
	}

	/**
	 * Returns the layout of a triple under a snapshot, making it if none is remembered.
	 * @param snapshot the policies in force
	 * @param endpoint the endpoint charged
	 * @param tenant the tenant of the request, {@code null} for none
	 * @param plan the plan of the request, {@code null} for none
	 * @return the layout
	 */
	ChargeLayout layoutFor(PolicySnapshot snapshot, EndpointTemplate endpoint, @Nullable String tenant,
			@Nullable String plan) {
		Table table = this.table;
		if (table.snapshot != snapshot) {
			table = new Table(snapshot);
			this.table = table;
		}
		int hash = 31 * (31 * endpoint.hashCode() + Objects.hashCode(tenant)) + Objects.hashCode(plan);
		int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
		Entry entry = table.entries[slot];
		if (entry != null && entry.endpoint.equals(endpoint) && Objects.equals(entry.tenant, tenant)
				&& Objects.equals(entry.plan, plan)) {
			return entry.layout;
		}
		ChargeLayout layout = this.maker.make(snapshot, endpoint, tenant, plan);
		table.entries[slot] = new Entry(endpoint, tenant, plan, layout);
		return layout;
	}

	/**
	 * Makes the layout of a triple under a snapshot.
	 */
	@FunctionalInterface
	interface Maker {

		ChargeLayout make(PolicySnapshot snapshot, EndpointTemplate endpoint, @Nullable String tenant,
				@Nullable String plan);

	}

	private static final class Table {

		private final @Nullable PolicySnapshot snapshot;

		private final Entry[] entries = new Entry[SLOTS];

		Table(@Nullable PolicySnapshot snapshot) {
			this.snapshot = snapshot;
		}

	}

	private record Entry(EndpointTemplate endpoint, @Nullable String tenant, @Nullable String plan,
			ChargeLayout layout) {
	}

}
