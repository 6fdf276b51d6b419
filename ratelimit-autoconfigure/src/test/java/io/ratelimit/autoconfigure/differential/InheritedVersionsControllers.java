package io.ratelimit.autoconfigure.differential;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Handler methods that one controller inherits from another under a version of its own,
 * so that one {@link java.lang.reflect.Method} serves two versions of a path (profiles
 * {@value VersionedController#HEADER} and {@value VersionedController#QUERY}, and with
 * the version in the path, {@value PathVersionedController#PATH}); and a catch-all route
 * mapped with a version.
 */
public final class InheritedVersionsControllers {

	private InheritedVersionsControllers() {
	}

	/** Version 1 of the inherited orders. */
	@RestController
	@RequestMapping(path = "/api/inherited/orders", version = "1")
	@Profile({ VersionedController.HEADER, VersionedController.QUERY })
	public static class OrdersV1 {

		@GetMapping("/export")
		String export() {
			return "export";
		}

	}

	/** Version 2 of the inherited orders: the same handler methods, another version. */
	@RestController
	@RequestMapping(path = "/api/inherited/orders", version = "2")
	@Profile({ VersionedController.HEADER, VersionedController.QUERY })
	public static class OrdersV2 extends OrdersV1 {

	}

	/** Files of version 2 only, under a catch-all pattern. */
	@RestController
	@Profile({ VersionedController.HEADER, VersionedController.QUERY })
	public static class Files {

		@GetMapping(path = "/api/versioned/files/{*path}", version = "2")
		String file(@PathVariable String path) {
			return "file";
		}

	}

	/** {@link OrdersV1} with the version as the second path segment. */
	@RestController
	@RequestMapping(path = "/api/{version}/inherited/orders", version = "1")
	@Profile(PathVersionedController.PATH)
	public static class PathOrdersV1 {

		@GetMapping("/export")
		String export(@PathVariable String version) {
			return "export";
		}

	}

	/** {@link OrdersV2} with the version as the second path segment. */
	@RestController
	@RequestMapping(path = "/api/{version}/inherited/orders", version = "2")
	@Profile(PathVersionedController.PATH)
	public static class PathOrdersV2 extends PathOrdersV1 {

	}

	/** {@link Files} with the version as the second path segment. */
	@RestController
	@Profile(PathVersionedController.PATH)
	public static class PathFiles {

		@GetMapping(path = "/api/{version}/versioned/files/{*path}", version = "2")
		String file(@PathVariable String version, @PathVariable String path) {
			return "file";
		}

	}

}
