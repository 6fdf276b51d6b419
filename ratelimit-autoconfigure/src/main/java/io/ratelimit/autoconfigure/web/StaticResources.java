package io.ratelimit.autoconfigure.web;

import java.lang.reflect.Method;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.util.ReflectionUtils;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;

/**
 * Whether a static-resource handler would find the resource of a request, decided by the
 * handler's own {@code getResource}: its path checks, locations and resolver chain are the
 * rules, so no copy of them can drift from what the handler then serves.
 */
final class StaticResources {

	// Protected, for subclasses that change how a resource is found: exactly the lookup wanted.
	private static final Method GET_RESOURCE = ReflectionUtils.findMethod(ResourceHttpRequestHandler.class,
			"getResource", HttpServletRequest.class);

	static {
		ReflectionUtils.makeAccessible(GET_RESOURCE);
	}

	private StaticResources() {
	}

	/**
	 * Returns whether the handler finds a resource for the request.
	 * @param handler the resource handler the request was matched to
	 * @param lookup the request, with the path within the handler mapping exposed
	 * @return {@code false} only if the handler surely finds none
	 */
	static boolean exists(ResourceHttpRequestHandler handler, HttpServletRequest lookup) {
		try {
			return ReflectionUtils.invokeMethod(GET_RESOURCE, handler, lookup) != null;
		}
		catch (RuntimeException ex) {
			// The handler could not tell either, so it may yet serve the request: never refused.
			return true;
		}
	}

}
