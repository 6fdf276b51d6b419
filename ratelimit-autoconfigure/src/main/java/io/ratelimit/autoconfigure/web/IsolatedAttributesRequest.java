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

	// Created on the first attribute: many lookups never store one.
	private @Nullable Map<String, Object> attributes;

	public IsolatedAttributesRequest(HttpServletRequest request) {
		super(request);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return (this.attributes != null) ? this.attributes.get(name) : null;
	}

	@Override
	public Enumeration<String> getAttributeNames() {
		return (this.attributes != null) ? Collections.enumeration(this.attributes.keySet())
				: Collections.emptyEnumeration();
	}

	@Override
	public void setAttribute(String name, Object value) {
		if (this.attributes == null) {
			this.attributes = new HashMap<>();
		}
		this.attributes.put(name, value);
	}

	@Override
	public void removeAttribute(String name) {
		if (this.attributes != null) {
			this.attributes.remove(name);
		}
	}

}
