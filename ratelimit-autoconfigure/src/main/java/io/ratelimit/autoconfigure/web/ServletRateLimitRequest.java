package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import io.ratelimit.core.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * A servlet request as the limiter's pipeline sees it. The peer address is the
 * connection's, never a header's.
 */
public final class ServletRateLimitRequest implements RateLimitRequest {

	private final HttpServletRequest request;

	/**
	 * Creates a view of a servlet request.
	 * @param request the request
	 */
	public ServletRateLimitRequest(HttpServletRequest request) {
		this.request = request;
	}

	@Override
	public String method() {
		return this.request.getMethod();
	}

	@Override
	public String path() {
		String uri = this.request.getRequestURI();
		String contextPath = this.request.getContextPath();
		return uri.startsWith(contextPath) ? uri.substring(contextPath.length()) : uri;
	}

	@Override
	public @Nullable String remoteAddress() {
		return this.request.getRemoteAddr();
	}

	@Override
	public List<String> headers(String name) {
		// Most requests lack most of the fields asked about: no enumeration for those.
		if (this.request.getHeader(name) == null) {
			return List.of();
		}
		Enumeration<String> values = this.request.getHeaders(name);
		if (values == null || !values.hasMoreElements()) {
			return List.of();
		}
		String first = values.nextElement();
		if (!values.hasMoreElements()) {
			return List.of(first);
		}
		List<String> all = new ArrayList<>();
		all.add(first);
		all.addAll(Collections.list(values));
		return all;
	}

	@Override
	public <T> @Nullable T unwrap(Class<T> type) {
		return type.isInstance(this.request) ? type.cast(this.request) : null;
	}

}
