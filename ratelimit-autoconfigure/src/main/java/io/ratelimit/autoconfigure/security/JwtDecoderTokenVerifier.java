package io.ratelimit.autoconfigure.security;

import java.util.Objects;

import io.ratelimit.core.identity.TokenVerifier;
import io.ratelimit.core.identity.VerifiedToken;
import org.jspecify.annotations.Nullable;

import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * Verifies bearer tokens with the application's {@link JwtDecoder}: the same signature,
 * expiry, issuer and audience checks its resource server applies. A token the decoder
 * refuses is no identity; the limiter falls back to the next tier and never answers 401.
 */
public class JwtDecoderTokenVerifier implements TokenVerifier {

	private final JwtDecoder decoder;

	private final String tenantClaim;

	/**
	 * Creates a verifier.
	 * @param decoder the application's decoder
	 * @param tenantClaim the claim naming the tenant, e.g. {@code project_id}
	 */
	public JwtDecoderTokenVerifier(JwtDecoder decoder, String tenantClaim) {
		this.decoder = Objects.requireNonNull(decoder, "decoder must not be null");
		this.tenantClaim = Objects.requireNonNull(tenantClaim, "tenantClaim must not be null");
	}

	@Override
	public @Nullable VerifiedToken verify(String token) {
		Jwt jwt;
		try {
			jwt = this.decoder.decode(token);
		}
		catch (JwtException ex) {
			return null;
		}
		String subject = jwt.getSubject();
		if (subject == null || subject.isEmpty()) {
			return null;
		}
		return new VerifiedToken(subject, tenantOf(jwt, this.tenantClaim), jwt.getExpiresAt());
	}

	static @Nullable String tenantOf(Jwt jwt, String tenantClaim) {
		Object tenant = jwt.getClaims().get(tenantClaim);
		return (tenant != null) ? tenant.toString() : null;
	}

}
