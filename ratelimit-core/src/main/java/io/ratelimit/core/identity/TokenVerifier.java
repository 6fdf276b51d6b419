package io.ratelimit.core.identity;

import org.jspecify.annotations.Nullable;

/**
 * Verifies a bearer token: signature, expiry, and issuer or audience when configured. The
 * Spring integration adapts the application's {@code JwtDecoder} to this interface.
 * <p>
 * A token that fails verification is not an identity. Implementations return {@code null}
 * or throw; either way the request falls back to the next identity tier, and the limiter
 * never answers 401 itself.
 */
@FunctionalInterface
public interface TokenVerifier {

	/**
	 * Verifies a token.
	 * @param token the token text from {@code Authorization: Bearer <token>}
	 * @return what the token vouches for, or {@code null} if it is not valid
	 */
	@Nullable VerifiedToken verify(String token);

}
