package io.ratelimit.autoconfigure.differential;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A single-page application's fallback: every {@code GET} no other route takes is answered
 * with the application's page, so that client-side routes survive a reload. Only in the
 * {@code spa} profile, since it serves every path the other shapes leave to no route.
 */
@RestController
@Profile(SpaFallbackController.PROFILE)
class SpaFallbackController {

	/** The profile that adds the fallback. */
	public static final String PROFILE = "spa";

	@GetMapping("/**")
	String page() {
		return "single-page application";
	}

}
