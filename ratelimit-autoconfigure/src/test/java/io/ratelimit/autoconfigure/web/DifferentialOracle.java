package io.ratelimit.autoconfigure.web;

import java.util.List;
import java.util.Set;

import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.autoconfigure.web.EndpointVariants.Variant;
import io.ratelimit.core.endpoint.EndpointTemplate;

import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;

import static org.assertj.core.api.Assertions.assertThat;

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
		// Versions of one path that different handlers serve are told apart (README).
		String versioned = (serving.version() != null) ? pattern + ";version=" + serving.version() : pattern;
		EndpointTemplate template = EndpointTemplate.fromPattern(serving.method(), versioned);
		// A catch-all route (/**, /{*path}) is no template either: it would swallow UNKNOWN.
		return "/**".equals(template.path()) ? EndpointTemplate.UNKNOWN : template;
	}

	/**
	 * What rejecting unknown endpoints relies on: a request charged to the UNKNOWN that
	 * nothing serves ({@link EndpointTemplate#isServedByNothing()}) is served by no handler,
	 * or only by the static-resource handler answering that it has no such resource.
	 */
	static void assertRefusableOnlyIfUnserved(Variant variant, Object observation, int status,
			List<EndpointTemplate> charges, List<Serving> servings) {
		if (charges.isEmpty() || !charges.get(0).isServedByNothing() || servings.isEmpty()) {
			return;
		}
		assertThat(ResourceHttpRequestHandler.class.isAssignableFrom(servings.get(0).handler()) && status == 404)
			.as("%s: charged as served by nothing, but served (%s)", variant, observation)
			.isTrue();
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

	/**
	 * What every variant must show, with or without Spring Security: no limiter failure,
	 * every record tied to its request, nothing rejected for its rate, and at most one
	 * charge and one serving.
	 */
	static void assertRecordedOnce(Variant variant, Object observation, int status, List<String> failures,
			int anonymous, List<EndpointTemplate> charges, List<Serving> servings) {
		assertThat(failures).as("%s: limiter failures (%s)", variant, observation).isEmpty();
		assertThat(anonymous).as("%s: records without a request id", variant).isZero();
		assertThat(status).as("%s: status; limits must be too high to reject (%s)", variant, observation)
			.isNotEqualTo(429);
		assertThat(charges).as("%s: charges (%s)", variant, observation).hasSizeLessThanOrEqualTo(1);
		assertThat(servings).as("%s: servings on the REQUEST dispatch (%s)", variant, observation)
			.hasSizeLessThanOrEqualTo(1);
	}

	/**
	 * The central invariant alone: a served request is charged to the template of what
	 * served it, and one that nothing served is charged to UNKNOWN.
	 */
	static void assertCharged(Variant variant, Object observation, List<EndpointTemplate> charges,
			List<Serving> servings) {
		if (charges.isEmpty()) {
			assertThat(servings).as("%s: served but never charged (%s)", variant, observation).isEmpty();
		}
		else {
			EndpointTemplate expected = servings.isEmpty() ? EndpointTemplate.UNKNOWN
					: expectedCharge(servings.get(0));
			assertThat(charges.get(0)).as("%s: charged template (%s)", variant, observation).isEqualTo(expected);
		}
	}

	/**
	 * The central invariant: a served request is charged to the template of what served it,
	 * one that nothing served is charged to UNKNOWN, and the variant is still served by the
	 * route it was written for.
	 * @param servedByChange says what changed the route when it no longer matches
	 */
	static void assertChargedAsServed(Variant variant, Object observation, List<EndpointTemplate> charges,
			List<Serving> servings, String servedByChange) {
		assertCharged(variant, observation, charges, servings);
		assertThat(servedBy(charges, servings))
			.as("%s: what served the variant, " + servedByChange + " (%s)", variant, observation)
			.isEqualTo(variant.servedBy());
	}

}
