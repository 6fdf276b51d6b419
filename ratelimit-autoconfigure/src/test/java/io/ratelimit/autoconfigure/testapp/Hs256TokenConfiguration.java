package io.ratelimit.autoconfigure.testapp;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import javax.crypto.spec.SecretKeySpec;

import com.nimbusds.jose.jwk.source.ImmutableSecret;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * An application {@link JwtDecoder} for HS256 tokens, which the limiter reuses, and a way
 * for tests to sign tokens with any secret.
 */
@TestConfiguration(proxyBeanMethods = false)
public class Hs256TokenConfiguration {

	public static final String SECRET = "the-test-application-hs256-secret-32b";

	@Bean
	JwtDecoder jwtDecoder() {
		return NimbusJwtDecoder.withSecretKey(new SecretKeySpec(bytes(SECRET), "HmacSHA256"))
			.macAlgorithm(MacAlgorithm.HS256)
			.build();
	}

	public static String sign(String secret, String subject, String tenant) {
		return sign(JwtClaimsSet.builder().subject(subject).claim("project_id", tenant), secret);
	}

	public static String sign(String secret, String subject, String tenant, String plan) {
		return sign(JwtClaimsSet.builder().subject(subject).claim("project_id", tenant).claim("plan", plan), secret);
	}

	private static String sign(JwtClaimsSet.Builder builder, String secret) {
		JwtClaimsSet claims = builder.expiresAt(Instant.now().plusSeconds(600)).build();
		return new NimbusJwtEncoder(new ImmutableSecret<>(bytes(secret)))
			.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
			.getTokenValue();
	}

	private static byte[] bytes(String secret) {
		return secret.getBytes(StandardCharsets.UTF_8);
	}

}
