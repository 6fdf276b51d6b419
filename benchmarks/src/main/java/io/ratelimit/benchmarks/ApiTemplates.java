package io.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.ratelimit.core.endpoint.EndpointTemplate;

/**
 * The routes of a synthetic REST API, five per resource the way CRUD controllers have
 * them: {@code GET} and {@code POST /api/things<k>}, and {@code GET}, {@code PUT} and
 * {@code DELETE /api/things<k>/{id}}. Two in five routes are literal paths, three in five
 * have a path variable, which matters because Spring MVC finds literal paths in a map and
 * has to match variable ones pattern by pattern.
 */
final class ApiTemplates {

	/** The value every {@code {id}} takes in the paths of requests. */
	static final String ID = "12345";

	private ApiTemplates() {
	}

	/**
	 * Returns the routes of an API with the given number of templates.
	 * @param count the number of templates, a multiple of 5
	 * @return the routes, in registration order
	 */
	static List<Route> of(int count) {
		if (count < 5 || count % 5 != 0) {
			throw new IllegalArgumentException("The number of templates must be a positive multiple of 5, but was " + count);
		}
		List<Route> routes = new ArrayList<>(count);
		for (int k = 0; k < count / 5; k++) {
			String collection = "/api/things" + k;
			String item = collection + "/{id}";
			routes.add(new Route("GET", collection, Route.Kind.LIST));
			routes.add(new Route("POST", collection, Route.Kind.CREATE));
			routes.add(new Route("GET", item, Route.Kind.READ));
			routes.add(new Route("PUT", item, Route.Kind.UPDATE));
			routes.add(new Route("DELETE", item, Route.Kind.DELETE));
		}
		return routes;
	}

	/**
	 * One route: an HTTP method and a Spring path pattern.
	 *
	 * @param method the HTTP method
	 * @param pattern the Spring path pattern, e.g. {@code /api/things3/{id}}
	 * @param kind which handler method of the controller serves it
	 */
	record Route(String method, String pattern, Kind kind) {

		/** The endpoint template the limiter charges for this route. */
		EndpointTemplate template() {
			return EndpointTemplate.fromPattern(this.method, this.pattern);
		}

		/** A concrete request path this route serves. */
		String samplePath() {
			return this.pattern.replace("{id}", ID);
		}

		/** The handler methods of a CRUD controller. */
		enum Kind {

			LIST, CREATE, READ, UPDATE, DELETE

		}

	}

}
