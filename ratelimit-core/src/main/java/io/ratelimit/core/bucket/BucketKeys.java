package io.ratelimit.core.bucket;

import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.SubmittedIdentifier;

/**
 * Builds bucket keys: endpoint and principal (with its tenant) for authenticated requests,
 * endpoint and network identity for anonymous ones. By default an authenticated principal
 * has one bucket per endpoint wherever it connects from, so a stolen key used from many
 * addresses does not multiply its budget.
 */
public final class BucketKeys {

	private final KeyedHasher hasher;

	private final boolean networkForPrincipals;

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
		String principal = identity.principal();
		if (principal == null) {
			return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "network", identity.network().key()));
		}
		String source = identity.source().name();
		String tenant = Objects.requireNonNullElse(identity.tenant(), "");
		if (this.networkForPrincipals) {
			return BucketKey.fromHash(
					this.hasher.hash(endpoint.toString(), source, tenant, principal, identity.network().key()));
		}
		return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), source, tenant, principal));
	}

	/**
	 * Returns the key of the second bucket of a sensitive endpoint: the submitted
	 * identifier, whoever submits it, or, when none could be read, a bucket shared by
	 * everything unreadable from the client's network.
	 * @param endpoint the sensitive endpoint
	 * @param identifier the submitted identifier
	 * @param identity the client, for unreadable identifiers
	 * @return the key
	 */
	public BucketKey identifierKeyFor(EndpointTemplate endpoint, SubmittedIdentifier identifier, Identity identity) {
		String value = identifier.value();
		if (value == null) {
			return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "unreadable", identity.network().key()));
		}
		return BucketKey.fromHash(this.hasher.hash(endpoint.toString(), "identifier", value));
	}

}
