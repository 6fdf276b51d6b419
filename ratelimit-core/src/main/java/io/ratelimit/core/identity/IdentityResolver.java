package io.ratelimit.core.identity;

import java.time.Duration;
import java.util.Objects;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Resolves who a request is, cheapest trustworthy source first: a principal the
 * application authenticated (when one is known), a verified bearer token, then an active
 * API key, then the client network identity. A token or key that fails
 * verification is not an identity; the request simply falls through to the next tier, so
 * inventing credentials never earns a fresh budget.
 * <p>
 * Built with {@link #builder()}; without a token verifier or API keys the respective tier
 * is skipped. Thread-safe.
 */
public final class IdentityResolver {

	private final ClientIpResolver clientIp;

	private final @Nullable PrincipalResolver principals;

	private final @Nullable TokenAuthenticator tokens;

	private final @Nullable ApiKeyAuthenticator apiKeys;

	private IdentityResolver(Builder builder) {
		this.clientIp = builder.clientIp;
		this.principals = builder.principals;
		this.tokens = (builder.tokenVerifier != null) ? new TokenAuthenticator(builder.tokenVerifier, builder.time,
				builder.tokenCacheSize, builder.tokenCacheMaximumAge) : null;
		this.apiKeys = (builder.apiKeys != null && builder.apiKeyHasher != null)
				? new ApiKeyAuthenticator(builder.apiKeys, builder.apiKeyHasher, builder.apiKeyHeader) : null;
	}

	/**
	 * Returns a resolver that knows only network identities and trusts no proxy.
	 * @return the resolver
	 */
	public static IdentityResolver networkOnly() {
		return builder().build();
	}

	/**
	 * Returns a builder with the safe defaults: no trusted proxy, no token or key tier.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Resolves the identity of a request through every configured tier.
	 * @param request the request
	 * @return the identity, never {@code null}
	 */
	public Identity resolve(RateLimitRequest request) {
		NetworkIdentity network = network(request);
		AuthenticatedPrincipal principal = authenticatedPrincipal(request);
		if (principal != null) {
			return new Identity(Identity.Source.AUTHENTICATED, principal.name(), principal.tenant(), network,
					principal.plan());
		}
		if (this.tokens != null) {
			VerifiedToken token = this.tokens.authenticate(request.headers(TokenAuthenticator.AUTHORIZATION));
			if (token != null) {
				return new Identity(Identity.Source.TOKEN, token.subject(), token.tenant(), network, token.plan());
			}
		}
		if (this.apiKeys != null) {
			AuthenticatedPrincipal key = this.apiKeys.authenticate(request.headers(this.apiKeys.headerName()));
			if (key != null) {
				return new Identity(Identity.Source.API_KEY, key.name(), key.tenant(), network, key.plan());
			}
		}
		return Identity.anonymous(network);
	}

	/**
	 * Resolves only the client network identity, for requests that are keyed by network
	 * alone (unknown endpoints) and need no credential work.
	 * @param request the request
	 * @return the anonymous identity of the client network
	 */
	public Identity resolveAnonymous(RateLimitRequest request) {
		return Identity.anonymous(network(request));
	}

	private @Nullable AuthenticatedPrincipal authenticatedPrincipal(RateLimitRequest request) {
		if (this.principals == null) {
			return null;
		}
		try {
			return this.principals.resolve(request);
		}
		catch (RuntimeException ex) {
			// No principal can be told: the next tiers decide.
			return null;
		}
	}

	private NetworkIdentity network(RateLimitRequest request) {
		return this.clientIp.resolve(request);
	}

	/**
	 * Builds an {@link IdentityResolver}. Every setter checks its argument.
	 */
	public static final class Builder {

		private ClientIpResolver clientIp = ClientIpResolver.untrusting();

		private TimeSource time = TimeSource.system();

		private @Nullable PrincipalResolver principals;

		private @Nullable TokenVerifier tokenVerifier;

		private long tokenCacheSize = 10_000;

		private Duration tokenCacheMaximumAge = Duration.ofMinutes(5);

		private @Nullable ReloadableApiKeys apiKeys;

		private @Nullable KeyedHasher apiKeyHasher;

		private String apiKeyHeader = "X-API-Key";

		private Builder() {
		}

		/**
		 * Sets how the client network identity is found (trusted proxies, forwarding header).
		 * @param clientIp the client IP resolver
		 * @return this builder
		 */
		public Builder clientIp(ClientIpResolver clientIp) {
			this.clientIp = Objects.requireNonNull(clientIp, "clientIp must not be null");
			return this;
		}

		/**
		 * Sets the clock of the token cache.
		 * @param time the time source
		 * @return this builder
		 */
		public Builder timeSource(TimeSource time) {
			this.time = Objects.requireNonNull(time, "time must not be null");
			return this;
		}

		/**
		 * Enables the authenticated-principal tier, which outranks all others.
		 * @param principals tells the principal the application authenticated
		 * @return this builder
		 */
		public Builder authenticatedPrincipals(PrincipalResolver principals) {
			this.principals = Objects.requireNonNull(principals, "principals must not be null");
			return this;
		}

		/**
		 * Enables the bearer-token tier.
		 * @param verifier verifies tokens
		 * @return this builder
		 */
		public Builder tokenVerifier(TokenVerifier verifier) {
			this.tokenVerifier = Objects.requireNonNull(verifier, "verifier must not be null");
			return this;
		}

		/**
		 * Bounds the cache of verified tokens.
		 * @param maximumSize maximum number of cached tokens
		 * @param maximumAge longest a verified token is trusted without re-verification,
		 * even if it expires later
		 * @return this builder
		 */
		public Builder tokenCache(long maximumSize, Duration maximumAge) {
			this.tokenCacheSize = requirePositive(maximumSize, "token cache maximum size");
			this.tokenCacheMaximumAge = requirePositive(maximumAge, "token cache maximum age");
			return this;
		}

		/**
		 * Enables the API-key tier.
		 * @param keys the active keys, held in memory
		 * @param keyHasher the hasher the keys' hashes were made with
		 * @return this builder
		 */
		public Builder apiKeys(ReloadableApiKeys keys, KeyedHasher keyHasher) {
			this.apiKeys = Objects.requireNonNull(keys, "keys must not be null");
			this.apiKeyHasher = Objects.requireNonNull(keyHasher, "keyHasher must not be null");
			return this;
		}

		/**
		 * Sets the header that carries API keys.
		 * @param headerName the header name, {@code X-API-Key} by default
		 * @return this builder
		 */
		public Builder apiKeyHeader(String headerName) {
			Objects.requireNonNull(headerName, "headerName must not be null");
			if (headerName.isBlank()) {
				throw new IllegalArgumentException("The API key header name must not be blank");
			}
			this.apiKeyHeader = headerName;
			return this;
		}

		/**
		 * Builds the resolver.
		 * @return the resolver
		 */
		public IdentityResolver build() {
			return new IdentityResolver(this);
		}

		private static long requirePositive(long value, String name) {
			if (value <= 0) {
				throw new IllegalArgumentException("The " + name + " must be positive, but was " + value);
			}
			return value;
		}

		private static Duration requirePositive(Duration value, String name) {
			Objects.requireNonNull(value, name + " must not be null");
			if (value.isNegative() || value.isZero()) {
				throw new IllegalArgumentException("The " + name + " must be positive, but was " + value);
			}
			return value;
		}

	}

}
