package io.ratelimit.core.identity;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An API key as the key table holds it: never the key, only its keyed hash.
 *
 * @param keyHash the lower-case hex HMAC-SHA256 of the key (see {@link KeyedHasher})
 * @param principal the stable principal id the key belongs to
 * @param tenant the tenant of the principal, {@code null} if global
 * @param active whether the key may be used
 * @param plan the plan of the key's requests, {@code null} for none; the tenant-to-plan
 * table, when it names the tenant, outranks it
 */
public record ApiKey(String keyHash, String principal, @Nullable String tenant, boolean active,
		@Nullable String plan) {

	public ApiKey {
		Objects.requireNonNull(keyHash, "keyHash must not be null");
		Objects.requireNonNull(principal, "principal must not be null");
	}

	/**
	 * Creates a key without a plan.
	 * @param keyHash the lower-case hex HMAC-SHA256 of the key
	 * @param principal the stable principal id the key belongs to
	 * @param tenant the tenant of the principal, {@code null} if global
	 * @param active whether the key may be used
	 */
	public ApiKey(String keyHash, String principal, @Nullable String tenant, boolean active) {
		this(keyHash, principal, tenant, active, null);
	}

	/**
	 * Leaves out the key hash, which is no business of logs.
	 */
	@Override
	public String toString() {
		return "ApiKey[principal=" + this.principal + ", tenant=" + this.tenant + ", plan=" + this.plan + ", active="
				+ this.active + "]";
	}

}
