package io.ratelimit.core;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.Identity;

/**
 * The bucket keys of recent layered charges: for a (layout, endpoint, identity), the key of
 * every bucket of the layout, in its order. A client that sends request after request under
 * layered limits has its keys looked up once per request, rather than once per bucket
 * (each lookup hashing its identity again), and no array of keys is made per request.
 * <p>
 * The table is direct-mapped with no eviction policy, as {@link ChargeLayouts} and the
 * table of recent bucket keys: an entry takes its slot from whichever had it, and one whose
 * slot was taken is keyed again, which costs what every request cost without the table.
 * An entry answers only the very layout it was made for, so a new policy snapshot (new
 * layouts) never meets the keys of the old one. The arrays handed out are shared: nobody
 * writes to them.
 */
final class ChargeKeys {

	/** Slots of the table, a power of two, as many as the table of recent bucket keys. */
	static final int SLOTS = 4096;

	/*
	 * Slots are read and written without synchronization: an entry is immutable (final
	 * fields, so safely published even through a race; its array is filled before the entry
	 * is made), and a lost or overwritten entry only costs keying again.
	 */
	private final Entry[] entries = new Entry[SLOTS];

	private final Maker maker;

	/**
	 * @param maker keys the buckets of a layout for an identity none are remembered for
	 */
	ChargeKeys(Maker maker) {
		this.maker = maker;
	}

	/**
	 * Returns the key of every bucket of a layout for a client, making them if none are
	 * remembered.
	 * @param layout the buckets charged, without a login's account bucket
	 * @param endpoint the endpoint charged
	 * @param identity the identity charged
	 * @return the keys, in the layout's order; never to be written to
	 */
	BucketKey[] keysFor(ChargeLayout layout, EndpointTemplate endpoint, Identity identity) {
		int hash = 31 * layout.hashCode() + identity.hashCode();
		int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
		Entry entry = this.entries[slot];
		if (entry != null && entry.layout == layout && entry.endpoint.equals(endpoint)
				&& entry.identity.equals(identity)) {
			return entry.keys;
		}
		BucketKey[] keys = this.maker.make(layout, endpoint, identity);
		this.entries[slot] = new Entry(layout, endpoint, identity, keys);
		return keys;
	}

	/**
	 * Keys the buckets of a layout for an identity.
	 */
	@FunctionalInterface
	interface Maker {

		BucketKey[] make(ChargeLayout layout, EndpointTemplate endpoint, Identity identity);

	}

	private record Entry(ChargeLayout layout, EndpointTemplate endpoint, Identity identity, BucketKey[] keys) {
	}

}
