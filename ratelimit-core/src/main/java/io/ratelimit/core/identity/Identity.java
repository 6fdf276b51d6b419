package io.ratelimit.core.identity;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Who a request is, as far as the limiter can verify it. Authenticated identities carry a
 * stable principal id (a token subject or an API key's principal, never the secret itself),
 * the tenant and the plan their credential names; every identity carries the client network
 * identity. An anonymous identity has neither tenant nor plan: nothing a caller sends
 * without a verified credential chooses its limits.
 *
 * @param source how the identity was established
 * @param principal the verified principal id, {@code null} for anonymous requests
 * @param tenant the tenant (project) of the principal, {@code null} if global or anonymous
 * @param network the client network identity
 * @param plan the plan the verified credential names (an API key's row, a token's claim),
 * {@code null} if it names none or the request is anonymous; the tenant-to-plan table,
 * when it names the tenant, outranks it
 */
public record Identity(Source source, @Nullable String principal, @Nullable String tenant, NetworkIdentity network,
		@Nullable String plan) {

	public Identity {
		Objects.requireNonNull(source, "source must not be null");
		Objects.requireNonNull(network, "network must not be null");
		if ((source == Source.NETWORK) != (principal == null)) {
			throw new IllegalArgumentException("A principal is required for " + source + " identities and only for them");
		}
		if (principal == null && plan != null) {
			throw new IllegalArgumentException("An anonymous identity has no plan");
		}
	}

	/**
	 * Creates an identity whose credential names no plan.
	 * @param source how the identity was established
	 * @param principal the verified principal id, {@code null} for anonymous requests
	 * @param tenant the tenant of the principal, {@code null} if global or anonymous
	 * @param network the client network identity
	 */
	public Identity(Source source, @Nullable String principal, @Nullable String tenant, NetworkIdentity network) {
		this(source, principal, tenant, network, null);
	}

	/**
	 * Returns the anonymous identity of a client network.
	 * @param network the client network identity
	 * @return an identity without principal or tenant
	 */
	public static Identity anonymous(NetworkIdentity network) {
		return new Identity(Source.NETWORK, null, null, network);
	}

	/**
	 * Returns whether a principal was verified.
	 * @return {@code true} for token and API-key identities
	 */
	public boolean isAuthenticated() {
		return this.principal != null;
	}

	/**
	 * How an identity was established, from the most to the least specific.
	 */
	public enum Source {

		/** A principal the application authenticated itself (its security context). */
		AUTHENTICATED,

		/** A bearer token whose signature and expiry were verified. */
		TOKEN,

		/** An API key found among the active keys. */
		API_KEY,

		/** The client network identity alone. */
		NETWORK

	}

}
