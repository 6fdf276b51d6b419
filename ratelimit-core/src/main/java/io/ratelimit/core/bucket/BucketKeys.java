package io.ratelimit.core.bucket;

import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.SubmittedIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * Builds bucket keys: endpoint and principal (with its tenant) for authenticated requests,
 * endpoint and network identity for anonymous ones. By default an authenticated principal
 * has one bucket per endpoint wherever it connects from, so a stolen key used from many
 * addresses does not multiply its budget.
 * <p>
 * A key is a keyed hash (HMAC-SHA256), by far the dearest step of a decision, so the keys
 * of recent (endpoint, identity) pairs are remembered in a small table: a client that sends
 * request after request to one endpoint is hashed once. The table is direct-mapped and has
 * no eviction policy: a pair takes its slot from whichever pair had it, and a pair whose
 * slot was taken is hashed again. Whatever pairs a client invents, it costs at most one
 * hash per request, as without the table, and the table never grows.
 */
public final class BucketKeys {

	/**
	 * Slots of the table of recent keys, a power of two: with the identities they hold,
	 * under a megabyte.
	 */
	static final int RECENT_KEYS = 4096;

	private final KeyedHasher hasher;

	private final boolean networkForPrincipals;

	/*
	 * Read and written without synchronization: an entry is immutable (final fields, so
	 * safely published even through a race), and a lost or overwritten entry only costs a
	 * hash. An entry answers only the exact pair it holds.
	 */
	private final RecentKey[] recent = new RecentKey[RECENT_KEYS];

	private final RecentLimitKey[] recentLimits = new RecentLimitKey[RECENT_KEYS];

	/**
	 * Creates a key builder.
	 * @param hasher the keyed hash; replicas that share buckets must share its secret
	 * @param networkForPrincipals whether authenticated principals get a separate bucket per
	 * client network
	 */
	public BucketKeys(KeyedHasher hasher, boolean networkForPrincipals) {
		this.hasher = Objects.requireNonNull(hasher, "hasher must not be null");
		this.networkForPrincipals = networkForPrincipals;
	}

	/**
	 * Returns the bucket key of a request.
	 * @param endpoint the endpoint charged
	 * @param identity the identity charged
	 * @return the key
	 */
	public BucketKey keyFor(EndpointTemplate endpoint, Identity identity) {
		int slot = slotOf(endpoint, identity);
		RecentKey recent = this.recent[slot];
		if (recent != null && recent.endpoint().equals(endpoint) && recent.identity().equals(identity)) {
			return recent.key();
		}
		BucketKey key = hash(endpoint, identity);
		this.recent[slot] = new RecentKey(endpoint, identity, key);
		return key;
	}

	private static int slotOf(EndpointTemplate endpoint, Identity identity) {
		int hash = 31 * endpoint.hashCode() + identity.hashCode();
		return (hash ^ (hash >>> 16)) & (RECENT_KEYS - 1);
	}

	private BucketKey hash(EndpointTemplate endpoint, Identity identity) {
		return hash(endpoint.toString(), identity);
	}

	private BucketKey hash(String charged, Identity identity) {
		String principal = identity.principal();
		if (principal == null) {
			return BucketKey.fromHash(this.hasher.hash(charged, "network", identity.network().key()));
		}
		String source = identity.source().name();
		String tenant = Objects.requireNonNullElse(identity.tenant(), "");
		if (this.networkForPrincipals) {
			return BucketKey.fromHash(this.hasher.hash(charged, source, tenant, principal, identity.network().key()));
		}
		return BucketKey.fromHash(this.hasher.hash(charged, source, tenant, principal));
	}

	/**
	 * Returns the key of the bucket of a layered limit across the whole API that an identity
	 * draws on: one per (limit name, identity). Identities are keyed as for {@link #keyFor},
	 * so an anonymous caller's bucket is its network's.
	 * @param limitName the layered limit's name
	 * @param identity the identity charged
	 * @return the key
	 */
	public BucketKey apiKeyFor(String limitName, Identity identity) {
		return limitKeyFor(limitName, null, null, identity);
	}

	/**
	 * Returns the key of the bucket of a layered limit of a group of endpoints: one per
	 * (limit name, group, identity).
	 * @param limitName the layered limit's name
	 * @param group the group's name
	 * @param identity the identity charged
	 * @return the key
	 */
	public BucketKey groupKeyFor(String limitName, String group, Identity identity) {
		return limitKeyFor(limitName, Objects.requireNonNull(group, "group must not be null"), null, identity);
	}

	/**
	 * Returns the key of the bucket of a layered limit of each endpoint: one per (limit name,
	 * endpoint, identity), never the endpoint's own bucket.
	 * @param limitName the layered limit's name
	 * @param endpoint the endpoint charged
	 * @param identity the identity charged
	 * @return the key
	 */
	public BucketKey endpointLimitKeyFor(String limitName, EndpointTemplate endpoint, Identity identity) {
		return limitKeyFor(limitName, null, Objects.requireNonNull(endpoint, "endpoint must not be null"), identity);
	}

	/*
	 * Remembered like endpoint keys, in a table of their own so that layered limits never
	 * take an endpoint key's slot.
	 */
	private BucketKey limitKeyFor(String limitName, @Nullable String group, @Nullable EndpointTemplate endpoint,
			Identity identity) {
		int hash = 31 * (31 * (31 * limitName.hashCode() + Objects.hashCode(group)) + Objects.hashCode(endpoint))
				+ identity.hashCode();
		int slot = (hash ^ (hash >>> 16)) & (RECENT_KEYS - 1);
		RecentLimitKey recent = this.recentLimits[slot];
		if (recent != null && recent.limitName().equals(limitName) && Objects.equals(recent.group(), group)
				&& Objects.equals(recent.endpoint(), endpoint) && recent.identity().equals(identity)) {
			return recent.key();
		}
		// Templates cannot start with "limit": never an endpoint's own key. The name's length
		// keeps a name holding " of " apart from the scope after it.
		String scope = (group != null) ? "group " + group : (endpoint != null) ? endpoint.toString() : "api";
		BucketKey key = hash("limit " + limitName.length() + ":" + limitName + " of " + scope, identity);
		this.recentLimits[slot] = new RecentLimitKey(limitName, group, endpoint, identity, key);
		return key;
	}

	/**
	 * Returns the key of the second bucket of a sensitive endpoint: the submitted
	 * identifier, whoever submits it, or, when none could be read, one bucket shared by
	 * every unreadable attempt of the endpoint. Not the client's: an attacker who makes the
	 * account unreadable to the limiter (but not to the application) from many addresses
	 * would otherwise get a fresh budget of guesses per address.
	 * @param endpoint the sensitive endpoint
	 * @param identifier the submitted identifier
	 * @return the key
	 */
	public BucketKey identifierKeyFor(EndpointTemplate endpoint, SubmittedIdentifier identifier) {
		String value = identifier.value();
		if (value == null) {
			return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "unreadable"));
		}
		return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "identifier", value));
	}

	/**
	 * Returns the key of the bucket one trusted device of an account has on a sensitive
	 * endpoint, apart from the account's shared bucket.
	 * @param endpoint the sensitive endpoint
	 * @param identifier the account identifier, readable
	 * @param deviceId the device id of a verified device token of that account
	 * @return the bucket key
	 */
	public BucketKey deviceKeyFor(EndpointTemplate endpoint, SubmittedIdentifier identifier, String deviceId) {
		String value = Objects.requireNonNull(identifier.value(), "a device belongs to a readable identifier");
		return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "device", value, deviceId));
	}

	private record RecentKey(EndpointTemplate endpoint, Identity identity, BucketKey key) {
	}

	private record RecentLimitKey(String limitName, @Nullable String group, @Nullable EndpointTemplate endpoint,
			Identity identity, BucketKey key) {
	}

}
