package io.ratelimit.autoconfigure.web;

import java.util.List;
import java.util.Set;

import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.core.endpoint.EndpointTemplate;

import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;

/**
 * The oracle of the endpoint differential tests, with and without Spring Security: what a
 * request that was served must be charged to, and what served it. A class of its own, so
 * that using it does not start another test class's database.
 */
final class DifferentialOracle {

	/** The methods that may form templates: every other method is charged to UNKNOWN. */
	private static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	private DifferentialOracle() {
	}

	/**
	 * The oracle: the template a request served this way must be charged to.
	 */
	static EndpointTemplate expectedCharge(Serving serving) {
		String pattern = serving.pattern();
		if (!STANDARD_METHODS.contains(serving.method())) {
			// Documented exception: an invented method never mints a template, even when served.
			return EndpointTemplate.UNKNOWN;
		}
		if (pattern == null || ResourceHttpRequestHandler.class.isAssignableFrom(serving.handler())) {
			// A handler without a route pattern, or static resources: no template (SPEC-HTTP 4).
			return EndpointTemplate.UNKNOWN;
		}
		return EndpointTemplate.fromPattern(serving.method(), pattern);
	}

	/**
	 * What served a request, in the terms of {@link Variant#servedBy()}.
	 */
	static String servedBy(List<EndpointTemplate> charges, List<Serving> servings) {
		if (charges.isEmpty() && servings.isEmpty()) {
			return EndpointVariants.CONTAINER;
		}
		if (servings.isEmpty() || servings.get(0).pattern() == null
				|| ResourceHttpRequestHandler.class.isAssignableFrom(servings.get(0).handler())) {
			return EndpointVariants.NO_ROUTE;
		}
		return servings.get(0).pattern();
	}

}
