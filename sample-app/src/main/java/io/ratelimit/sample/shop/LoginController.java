package io.ratelimit.sample.shop;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A login endpoint, the target of credential stuffing. The demo knows one user, alice of
 * tenant acme, and answers her with a bearer token for the rest of the API.
 */
@RestController
class LoginController {

	private static final Duration TOKEN_LIFETIME = Duration.ofHours(1);

	private final JwtEncoder tokens;

	LoginController(JwtEncoder tokens) {
		this.tokens = tokens;
	}

	@PostMapping("/api/login")
	ResponseEntity<Map<String, Object>> login(@RequestBody Map<String, String> credentials) {
		boolean valid = "alice".equals(credentials.get("username")) && "wonderland".equals(credentials.get("password"));
		if (!valid) {
			return ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(Map.of("error", "invalid credentials"));
		}
		JwtClaimsSet claims = JwtClaimsSet.builder()
			.subject("alice")
			.claim("project_id", "acme")
			.issuedAt(Instant.now())
			.expiresAt(Instant.now().plus(TOKEN_LIFETIME))
			.build();
		String token = this.tokens.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
			.getTokenValue();
		return ResponseEntity.ok(Map.of("access_token", token, "token_type", "Bearer",
				"expires_in", TOKEN_LIFETIME.toSeconds()));
	}

}
