package io.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Instant;
import java.util.Date;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.ratelimit.core.identity.TokenVerifier;
import io.ratelimit.core.identity.VerifiedToken;
import org.jspecify.annotations.Nullable;

/**
 * HS256 tokens signed and verified with Nimbus: parse, check the signature, check the
 * expiry, read subject and tenant, as a {@code NimbusJwtDecoder} does with a secret key.
 */
final class Hs256Tokens implements TokenVerifier {

	private static final byte[] SECRET = "a-benchmark-hs256-secret-of-at-least-256-bits!"
		.getBytes(StandardCharsets.UTF_8);

	private final JWSVerifier verifier;

	Hs256Tokens() {
		try {
			this.verifier = new MACVerifier(SECRET);
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Signs a token valid for an hour.
	 * @param subject the subject
	 * @param tenant the {@code project_id} claim
	 * @return the compact serialization
	 */
	String sign(String subject, String tenant) {
		try {
			JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject)
				.claim("project_id", tenant)
				.expirationTime(Date.from(Instant.now().plusSeconds(3600)))
				.build();
			SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
			jwt.sign(new MACSigner(SECRET));
			return jwt.serialize();
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public @Nullable VerifiedToken verify(String token) {
		try {
			SignedJWT jwt = SignedJWT.parse(token);
			if (!jwt.verify(this.verifier)) {
				return null;
			}
			JWTClaimsSet claims = jwt.getJWTClaimsSet();
			Date expiresAt = claims.getExpirationTime();
			if (expiresAt == null || !expiresAt.toInstant().isAfter(Instant.now())) {
				return null;
			}
			return new VerifiedToken(claims.getSubject(), claims.getStringClaim("project_id"), expiresAt.toInstant());
		}
		catch (ParseException | JOSEException ex) {
			return null;
		}
	}

}
