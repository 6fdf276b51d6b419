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

	private final String planClaim;

	/**
	 * Creates a verifier that reads the plan from the {@code plan} claim.
	 * @param decoder the application's decoder
	 * @param tenantClaim the claim naming the tenant, e.g. {@code project_id}
	 */
	public JwtDecoderTokenVerifier(JwtDecoder decoder, String tenantClaim) {
		this(decoder, tenantClaim, "plan");
	}

	/**
	 * Creates a verifier.
	 * @param decoder the application's decoder
	 * @param tenantClaim the claim naming the tenant, e.g. {@code project_id}
	 * @param planClaim the claim naming the plan, e.g. {@code plan}
	 */
	public JwtDecoderTokenVerifier(JwtDecoder decoder, String tenantClaim, String planClaim) {
		this.decoder = Objects.requireNonNull(decoder, "decoder must not be null");
		this.tenantClaim = Objects.requireNonNull(tenantClaim, "tenantClaim must not be null");
		this.planClaim = Objects.requireNonNull(planClaim, "planClaim must not be null");
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
		return new VerifiedToken(subject, claim(jwt, this.tenantClaim), jwt.getExpiresAt(), claim(jwt, this.planClaim));
	}

	/**
	 * Reads a claim of a verified token as text.
	 * @param jwt the verified token
	 * @param name the claim's name
	 * @return the claim, {@code null} if the token has none
	 */
	static @Nullable String claim(Jwt jwt, String name) {
		Object value = jwt.getClaims().get(name);
		return (value != null) ? value.toString() : null;
	}

}
