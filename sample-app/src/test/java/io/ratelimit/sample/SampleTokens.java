package io.ratelimit.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import javax.crypto.spec.SecretKeySpec;

import com.nimbusds.jose.jwk.source.ImmutableSecret;

import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * Bearer tokens the sample must not accept, though each is well formed: expired, not yet
 * valid, signed with another key, or signed with the sample's key but with an algorithm
 * its decoder does not allow.
 */
final class SampleTokens {

	private SampleTokens() {
	}

	static List<String> refused(String sampleSecret) {
		// Fixed instants, so that one fuzzing seed replays the same tokens.
		Instant past = Instant.parse("2020-01-01T00:00:00Z");
		Instant future = Instant.parse("2100-01-01T00:00:00Z");
		String otherSecret = "another-secret-of-at-least-thirty-two-bytes-0123456789";
		return List.of(token(sampleSecret, MacAlgorithm.HS256, past, past.plus(Duration.ofHours(1))),
				token(sampleSecret, MacAlgorithm.HS256, future, future.plus(Duration.ofHours(1))),
				token(otherSecret, MacAlgorithm.HS256, past, future),
				token(sampleSecret + sampleSecret, MacAlgorithm.HS512, past, future));
	}

	private static String token(String secret, MacAlgorithm algorithm, Instant notBefore, Instant expiresAt) {
		NimbusJwtEncoder encoder = new NimbusJwtEncoder(new ImmutableSecret<>(
				new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm.getName().replace("HS", "HmacSHA"))));
		JwtClaimsSet claims = JwtClaimsSet.builder()
			.subject("mallory")
			.claim("project_id", "acme")
			.issuedAt(notBefore)
			.notBefore(notBefore)
			.expiresAt(expiresAt)
			.build();
		return encoder.encode(JwtEncoderParameters.from(JwsHeader.with(algorithm).build(), claims)).getTokenValue();
	}

}
