package io.ratelimit.autoconfigure.differential;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Routes with Spring Framework 7 API versions, read from a header or a query parameter (the
 * profiles {@value #HEADER} and {@value #QUERY}, with versions 1 and 2, default 1): the
 * export exists in version 2 only, so version 1 of its path is an order; the reports of
 * version 1 and 2 are different handlers of one path.
 */
@RestController
@Profile({ VersionedController.HEADER, VersionedController.QUERY })
public class VersionedController {

	/** The profile that reads the version from the {@code API-Version} header. */
	public static final String HEADER = "versioned-header";

	/** The profile that reads the version from the {@code version} query parameter. */
	public static final String QUERY = "versioned-query";

	@GetMapping("/api/versioned/orders/{id}")
	String order(@PathVariable String id) {
		return "order";
	}

	@GetMapping(path = "/api/versioned/orders/export", version = "2")
	String export() {
		return "export";
	}

	@GetMapping(path = "/api/versioned/reports", version = "1")
	String reportsV1() {
		return "reports v1";
	}

	@GetMapping(path = "/api/versioned/reports", version = "2")
	String reportsV2() {
		return "reports v2";
	}

}
