package io.ratelimit.core.identity;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The bearer-token tier: strict header syntax, then a bounded cache of verified tokens, then
 * the {@link TokenVerifier}. A hot token is verified once and served from the cache until it
 * expires; the cache is keyed by a keyed hash, so it never holds a token.
 */
final class TokenAuthenticator {

	static final String AUTHORIZATION = "Authorization";

	private static final int MAX_TOKEN_LENGTH = 8192;

	private static final String SCHEME = "Bearer ";

	private final TokenVerifier verifier;

	private final TimeSource time;

	private final KeyedHasher hasher = KeyedHasher.withRandomSecret();

	private final Cache<ByteBuffer, VerifiedToken> verified;

	TokenAuthenticator(TokenVerifier verifier, TimeSource time, long maximumSize, Duration maximumAge) {
		this.verifier = verifier;
		this.time = time;
		this.verified = Caffeine.newBuilder()
			.maximumSize(maximumSize)
			.expireAfter(new UntilTokenExpiry(time, maximumAge.toNanos()))
			.ticker(time::nanoTime)
			.executor(Runnable::run)
			.build();
	}

	/**
	 * @param authorization every {@code Authorization} header line of the request
	 * @return the verified token, or {@code null} if there is none or it is not valid
	 */
	@Nullable VerifiedToken authenticate(List<String> authorization) {
		String token = (authorization.size() == 1) ? bearerToken(authorization.get(0)) : null;
		if (token == null) {
			return null;
		}
		ByteBuffer key = ByteBuffer.wrap(this.hasher.hash(token));
		VerifiedToken cached = this.verified.getIfPresent(key);
		if (cached != null && isCurrent(cached)) {
			return cached;
		}
		VerifiedToken fresh = verify(token);
		if (fresh != null && isCurrent(fresh)) {
			this.verified.put(key, fresh);
			return fresh;
		}
		return null;
	}

	private @Nullable VerifiedToken verify(String token) {
		try {
			return this.verifier.verify(token);
		}
		catch (RuntimeException ex) {
			// A verifier signals an invalid token by throwing (Spring's JwtException): no identity.
			return null;
		}
	}

	private boolean isCurrent(VerifiedToken token) {
		Instant expiresAt = token.expiresAt();
		return expiresAt == null || expiresAt.toEpochMilli() > this.time.currentTimeMillis();
	}

	/**
	 * RFC 6750 {@code Bearer <b64token>} with one space, as Spring Security reads it.
	 */
	static @Nullable String bearerToken(String header) {
		if (header.length() <= SCHEME.length() || header.length() > SCHEME.length() + MAX_TOKEN_LENGTH
				|| !header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
			return null;
		}
		int end = header.length();
		while (end > SCHEME.length() && header.charAt(end - 1) == '=') {
			end--;
		}
		if (end == SCHEME.length()) {
			return null;
		}
		for (int i = SCHEME.length(); i < end; i++) {
			if (!isTokenCharacter(header.charAt(i))) {
				return null;
			}
		}
		return header.substring(SCHEME.length());
	}

	private static boolean isTokenCharacter(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~+/".indexOf(c) >= 0;
	}

	/**
	 * Keeps a verified token until it expires, and never longer than the configured age, so
	 * tokens without an expiry are still re-verified now and then.
	 */
	private record UntilTokenExpiry(TimeSource time, long maximumAgeNanos) implements Expiry<ByteBuffer, VerifiedToken> {

		@Override
		public long expireAfterCreate(ByteBuffer key, VerifiedToken token, long currentTime) {
			Instant expiresAt = token.expiresAt();
			if (expiresAt == null) {
				return this.maximumAgeNanos;
			}
			long remainingMillis = expiresAt.toEpochMilli() - this.time.currentTimeMillis();
			return Math.max(0, Math.min(this.maximumAgeNanos, TimeUnit.MILLISECONDS.toNanos(remainingMillis)));
		}

		@Override
		public long expireAfterUpdate(ByteBuffer key, VerifiedToken token, long currentTime, long currentDuration) {
			return expireAfterCreate(key, token, currentTime);
		}

		@Override
		public long expireAfterRead(ByteBuffer key, VerifiedToken token, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

}
