package io.ratelimit.core.identity;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The active API keys of one load, immutable, in a layout sized for a hundred thousand
 * keys and more: each key's 32-byte keyed hash in a {@code long[]}, its owner as an
 * {@code int} index into principal, tenant and plan arrays that keys of one owner share, and an
 * open-addressing table of {@code int} slots at most half full. That is 44 to 52 bytes per
 * key, and per owner 12 bytes plus the principal's {@code String} (about 40 bytes and its
 * length; tenants and plans are shared), where a map of hex strings to records would take
 * about 250.
 * <p>
 * A key's hash is an HMAC under a secret the client does not know, so its first eight
 * bytes are as good a table position as any hash function would give, and an attacker
 * cannot aim invented keys at one slot.
 */
final class ApiKeyDirectory {

	static final ApiKeyDirectory EMPTY = new ApiKeyDirectory(new long[0], new int[0], new String[0],
			new @Nullable String[0], new @Nullable String[0], new int[1], 0);

	/** Length of an HMAC-SHA256 in bytes; four longs. */
	static final int HASH_BYTES = 32;

	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

	private final long[] hashes;

	private final int[] owners;

	private final String[] principals;

	private final @Nullable String[] tenants;

	private final @Nullable String[] plans;

	// Index + 1 of the key in each slot; 0 is an empty slot.
	private final int[] slots;

	private final int skipped;

	private ApiKeyDirectory(long[] hashes, int[] owners, String[] principals, @Nullable String[] tenants,
			@Nullable String[] plans, int[] slots, int skipped) {
		this.hashes = hashes;
		this.owners = owners;
		this.principals = principals;
		this.tenants = tenants;
		this.plans = plans;
		this.slots = slots;
		this.skipped = skipped;
	}

	/**
	 * Builds a directory of the active keys among {@code keys}. Inactive keys, keys whose
	 * hash is not 64 lower-case hex digits (it could never match), keys with an empty
	 * principal (not an identity) and second rows for the same hash are left out and
	 * counted in {@link #skipped()}.
	 * @param keys the keys as loaded
	 * @return the directory
	 */
	static ApiKeyDirectory of(List<ApiKey> keys) {
		long[] hashes = new long[keys.size() * 4];
		int[] owners = new int[keys.size()];
		Map<Owner, Integer> ownerIndex = new HashMap<>();
		int[] slots = new int[tableSize(keys.size())];
		int mask = slots.length - 1;
		int count = 0;
		int skipped = 0;
		for (ApiKey key : keys) {
			byte[] hash = (key.active() && !key.principal().isEmpty()) ? parseHash(key.keyHash()) : null;
			if (hash == null) {
				skipped++;
				continue;
			}
			int slot = findSlot(hashes, slots, mask, hash);
			if (slots[slot] != 0) {
				skipped++;
				continue;
			}
			for (int i = 0; i < 4; i++) {
				hashes[count * 4 + i] = (long) LONGS.get(hash, i * 8);
			}
			owners[count] = ownerIndex.computeIfAbsent(new Owner(key.principal(), key.tenant(), key.plan()),
					(owner) -> ownerIndex.size());
			count++;
			slots[slot] = count;
		}
		String[] principals = new String[ownerIndex.size()];
		@Nullable String[] tenants = new @Nullable String[ownerIndex.size()];
		@Nullable String[] plans = new @Nullable String[ownerIndex.size()];
		Map<String, String> shared = new HashMap<>();
		ownerIndex.forEach((owner, index) -> {
			principals[index] = owner.principal();
			tenants[index] = (owner.tenant() != null) ? shared.computeIfAbsent(owner.tenant(), (t) -> t) : null;
			plans[index] = (owner.plan() != null) ? shared.computeIfAbsent(owner.plan(), (p) -> p) : null;
		});
		long[] packedHashes = (count * 4 == hashes.length) ? hashes : Arrays.copyOf(hashes, count * 4);
		int[] packedOwners = (count == owners.length) ? owners : Arrays.copyOf(owners, count);
		return new ApiKeyDirectory(packedHashes, packedOwners, principals, tenants, plans, slots, skipped);
	}

	/**
	 * Returns the key with the given keyed hash.
	 * @param hash the 32-byte HMAC-SHA256 of the presented key
	 * @return the key's index, or -1 if it is not an active key
	 */
	int indexOf(byte[] hash) {
		int slot = findSlot(this.hashes, this.slots, this.slots.length - 1, hash);
		return this.slots[slot] - 1;
	}

	/**
	 * Returns the principal of the key at {@code index}.
	 * @param index an index returned by {@link #indexOf}
	 * @return the principal
	 */
	String principal(int index) {
		return this.principals[this.owners[index]];
	}

	/**
	 * Returns the tenant of the key at {@code index}.
	 * @param index an index returned by {@link #indexOf}
	 * @return the tenant, {@code null} if the key is global
	 */
	@Nullable String tenant(int index) {
		return this.tenants[this.owners[index]];
	}

	/**
	 * Returns the plan of the key at {@code index}.
	 * @param index an index returned by {@link #indexOf}
	 * @return the plan of the key's row, {@code null} if it names none
	 */
	@Nullable String plan(int index) {
		return this.plans[this.owners[index]];
	}

	/**
	 * Returns the number of active keys held.
	 * @return the number of keys
	 */
	int size() {
		return this.owners.length;
	}

	/**
	 * Returns how many rows of the load were left out: inactive, malformed or repeated.
	 * @return the number of rows skipped
	 */
	int skipped() {
		return this.skipped;
	}

	/**
	 * Returns the slot that holds {@code hash}, or the empty slot where it would go.
	 */
	private static int findSlot(long[] hashes, int[] slots, int mask, byte[] hash) {
		long first = (long) LONGS.get(hash, 0);
		int slot = (int) (first ^ (first >>> 32)) & mask;
		while (true) {
			int entry = slots[slot];
			if (entry == 0 || matches(hashes, (entry - 1) * 4, hash, first)) {
				return slot;
			}
			slot = (slot + 1) & mask;
		}
	}

	// Not constant-time, and need not be: without the secret nobody can choose a key
	// whose hash comes close to another's.
	private static boolean matches(long[] hashes, int offset, byte[] hash, long first) {
		return hashes[offset] == first && hashes[offset + 1] == (long) LONGS.get(hash, 8)
				&& hashes[offset + 2] == (long) LONGS.get(hash, 16) && hashes[offset + 3] == (long) LONGS.get(hash, 24);
	}

	/** A power of two with at least one empty slot and at most half the slots in use. */
	private static int tableSize(int keys) {
		int size = 2;
		while (size < 2L * keys) {
			size <<= 1;
		}
		return size;
	}

	private static byte @Nullable [] parseHash(String hex) {
		if (hex.length() != HASH_BYTES * 2) {
			return null;
		}
		for (int i = 0; i < hex.length(); i++) {
			char c = hex.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return null;
			}
		}
		return HexFormat.of().parseHex(hex);
	}

	private record Owner(String principal, @Nullable String tenant, @Nullable String plan) {

		Owner {
			Objects.requireNonNull(principal, "principal must not be null");
		}

	}

}
