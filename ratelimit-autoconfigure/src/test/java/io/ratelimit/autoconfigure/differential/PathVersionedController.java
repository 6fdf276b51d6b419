package io.ratelimit.autoconfigure.differential;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The routes of {@link VersionedController} with the API version as the second path
 * segment (profile {@value #PATH}): {@code /api/2/versioned/orders/export}.
 */
@RestController
@Profile(PathVersionedController.PATH)
public class PathVersionedController {

	/** The profile that reads the version from the second path segment. */
	public static final String PATH = "versioned-path";

	@GetMapping("/api/{version}/versioned/orders/{id}")
	String order(@PathVariable String version, @PathVariable String id) {
		return "order";
	}

	@GetMapping(path = "/api/{version}/versioned/orders/export", version = "2")
	String export(@PathVariable String version) {
		return "export";
	}

	@GetMapping(path = "/api/{version}/versioned/reports", version = "1")
	String reportsV1(@PathVariable String version) {
		return "reports v1";
	}

	@GetMapping(path = "/api/{version}/versioned/reports", version = "2")
	String reportsV2(@PathVariable String version) {
		return "reports v2";
	}

}
