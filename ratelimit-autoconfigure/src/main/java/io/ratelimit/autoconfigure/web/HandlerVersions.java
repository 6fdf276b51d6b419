package io.ratelimit.autoconfigure.web;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * The API version each handler method of an annotated mapping was mapped with (Spring
 * Framework 7's {@code @GetMapping(version = ...)}), so that versions of one path that
 * different handlers serve are charged to templates of their own. The mapping exposes only
 * which handler it chose, so the version is found by the handler's method; a method mapped
 * under several versions cannot tell which matched, and counts as unversioned.
 */
final class HandlerVersions {

	/** The versions of a mapping that has none, or is no annotated mapping. */
	static final HandlerVersions NONE = new HandlerVersions(Map.of());

	private final Map<Method, String> versions;

	private HandlerVersions(Map<Method, String> versions) {
		this.versions = versions;
	}

	/**
	 * Reads the versions of a mapping's handler methods.
	 * @param mapping the annotated handler mapping
	 * @return the versions, {@link #NONE} if no route is versioned
	 */
	static HandlerVersions of(RequestMappingInfoHandlerMapping mapping) {
		Map<Method, String> versions = new HashMap<>();
		Set<Method> ambiguous = new HashSet<>();
		for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mapping.getHandlerMethods().entrySet()) {
			String version = entry.getKey().getVersionCondition().getVersion();
			Method method = entry.getValue().getMethod();
			String earlier = (version != null) ? versions.putIfAbsent(method, version) : null;
			if (earlier != null && !earlier.equals(version)) {
				ambiguous.add(method);
			}
		}
		ambiguous.forEach(versions::remove);
		return versions.isEmpty() ? NONE : new HandlerVersions(Map.copyOf(versions));
	}

	/**
	 * Returns the API version a handler was mapped with.
	 * @param handler the handler the mapping returned
	 * @return the version declared on its mapping, e.g. {@code 2} or {@code 1.1+}, or
	 * {@code null} if the handler is not versioned
	 */
	@Nullable String versionOf(Object handler) {
		return (!this.versions.isEmpty() && handler instanceof HandlerMethod handlerMethod)
				? this.versions.get(handlerMethod.getMethod()) : null;
	}

}
