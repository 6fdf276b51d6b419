package io.ratelimit.autoconfigure.web;

import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A request whose attributes are its own, for asking Spring MVC's handler mappings about a
 * request: whatever the lookup stores stays here, and the real dispatch sees nothing of it.
 */
public class IsolatedAttributesRequest extends HttpServletRequestWrapper {

	private final Map<String, Object> attributes = new HashMap<>();

	public IsolatedAttributesRequest(HttpServletRequest request) {
		super(request);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.attributes.get(name);
	}

	@Override
	public Enumeration<String> getAttributeNames() {
		return Collections.enumeration(this.attributes.keySet());
	}

	@Override
	public void setAttribute(String name, Object value) {
		this.attributes.put(name, value);
	}

	@Override
	public void removeAttribute(String name) {
		this.attributes.remove(name);
	}

}
