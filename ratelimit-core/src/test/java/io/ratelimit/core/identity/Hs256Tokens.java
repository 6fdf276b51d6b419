package io.ratelimit.core.identity;

import java.text.ParseException;
import java.time.Instant;
import java.util.Date;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Real HS256 tokens for tests: signs with Nimbus and verifies signature and expiry the way
 * a {@code JwtDecoder} would, against the test's clock.
 */
final class Hs256Tokens implements TokenVerifier {

	static final String SECRET = "an-hs256-test-secret-of-at-least-32-bytes!";

	private final byte[] secret;

	private final TimeSource time;

	Hs256Tokens(String secret, TimeSource time) {
		this.secret = secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		this.time = time;
	}

	String sign(String subject, @Nullable String tenant, Instant expiresAt) {
		try {
			JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().subject(subject).expirationTime(Date.from(expiresAt));
			if (tenant != null) {
				claims.claim("project_id", tenant);
			}
			SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
			jwt.sign(new MACSigner(this.secret));
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
			if (!jwt.verify(new MACVerifier(this.secret))) {
				throw new IllegalArgumentException("bad signature");
			}
			JWTClaimsSet claims = jwt.getJWTClaimsSet();
			Instant expiresAt = claims.getExpirationTime().toInstant();
			if (!expiresAt.isAfter(Instant.ofEpochMilli(this.time.currentTimeMillis()))) {
				throw new IllegalArgumentException("expired");
			}
			return new VerifiedToken(claims.getSubject(), claims.getStringClaim("project_id"), expiresAt);
		}
		catch (ParseException | JOSEException ex) {
			throw new IllegalArgumentException("not a valid token", ex);
		}
	}

}
