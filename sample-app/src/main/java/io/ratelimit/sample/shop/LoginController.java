package io.ratelimit.sample.shop;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A login endpoint, the target of credential stuffing. The demo accepts one user.
 */
@RestController
class LoginController {

	@PostMapping("/api/login")
	ResponseEntity<Map<String, Object>> login(@RequestBody Map<String, String> credentials) {
		boolean valid = "alice".equals(credentials.get("username")) && "wonderland".equals(credentials.get("password"));
		return valid ? ResponseEntity.ok(Map.of("user", "alice"))
				: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(Map.of("error", "invalid credentials"));
	}

}
