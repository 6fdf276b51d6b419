package io.ratelimit.autoconfigure.web;

import java.util.IdentityHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * The route each handler of an annotated mapping was registered with, where the route has
 * an API version (Spring Framework 7's {@code @GetMapping(version = ...)}), so that
 * versions of one path that different handlers serve are charged to templates of their own.
 * <p>
 * The mapping exposes only which handler it chose, so the route is found by the handler.
 * Each registration has a handler of its own, so keying on it tells apart what keying on
 * the {@link java.lang.reflect.Method} cannot: a method a controller inherits under another
 * version is one {@code Method} in two registrations.
 */
final class HandlerVersions {

	/** The versions of a mapping that has none, or is no annotated mapping. */
	static final HandlerVersions NONE = new HandlerVersions(Map.of());

	// By identity: HandlerMethod.equals compares bean and method, which two registrations of
	// one bean's method under two versions share.
	private final Map<HandlerMethod, RequestMappingInfo> routes;

	private HandlerVersions(Map<HandlerMethod, RequestMappingInfo> routes) {
		this.routes = routes;
	}

	/**
	 * Reads the versioned routes of a mapping's handlers.
	 * @param mapping the annotated handler mapping
	 * @return the versions, {@link #NONE} if no route is versioned
	 */
	static HandlerVersions of(RequestMappingInfoHandlerMapping mapping) {
		Map<HandlerMethod, RequestMappingInfo> routes = new IdentityHashMap<>();
		mapping.getHandlerMethods().forEach((info, handler) -> {
			if (versionOf(info) != null) {
				routes.put(original(handler), info);
			}
		});
		return routes.isEmpty() ? NONE : new HandlerVersions(routes);
	}

	/**
	 * Returns the API version a route was mapped with, the one place both the resolver and
	 * the startup list of templates read it.
	 * @param route the route
	 * @return the version, e.g. {@code 2} or {@code 1.1+}, or {@code null} if it has none
	 */
	static @Nullable String versionOf(RequestMappingInfo route) {
		return route.getVersionCondition().getVersion();
	}

	/**
	 * Returns the versioned route a handler was registered with.
	 * @param handler the handler the mapping returned
	 * @return the route, or {@code null} if the handler's route has no version
	 */
	@Nullable RequestMappingInfo routeOf(Object handler) {
		if (this.routes.isEmpty() || !(handler instanceof HandlerMethod handlerMethod)) {
			return null;
		}
		return this.routes.get(original(handlerMethod));
	}

	/**
	 * The handler method a registration created first: the mapping registers a copy of it
	 * and hands out copies with the bean resolved, and every copy knows that first one.
	 */
	private static HandlerMethod original(HandlerMethod handler) {
		HandlerMethod original = handler.getResolvedFromHandlerMethod();
		return (original != null) ? original : handler;
	}

	/**
	 * Returns whether the mapping's versioned routes are still those of this snapshot, with
	 * the same handlers: a route registered again keeps its mapping info but not its handler.
	 * @param mapping the mapping this snapshot was read from
	 * @return whether the snapshot is up to date
	 */
	boolean isCurrent(RequestMappingInfoHandlerMapping mapping) {
		int versioned = 0;
		for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mapping.getHandlerMethods().entrySet()) {
			if (versionOf(entry.getKey()) != null) {
				versioned++;
				if (!entry.getKey().equals(this.routes.get(original(entry.getValue())))) {
					return false;
				}
			}
		}
		return versioned == this.routes.size();
	}

}
