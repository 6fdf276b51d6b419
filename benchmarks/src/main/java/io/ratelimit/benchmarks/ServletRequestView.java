package io.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import io.ratelimit.core.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * A servlet request seen as a {@link RateLimitRequest}, the way {@code RateLimitFilter}
 * adapts it (that adapter is package-private), for benchmarks that call the limiter or
 * {@code MvcEndpointResolver} without the filter.
 */
final class ServletRequestView implements RateLimitRequest {

	private final HttpServletRequest request;

	ServletRequestView(HttpServletRequest request) {
		this.request = request;
	}

	@Override
	public String method() {
		return this.request.getMethod();
	}

	@Override
	public String path() {
		return this.request.getRequestURI();
	}

	@Override
	public @Nullable String remoteAddress() {
		return this.request.getRemoteAddr();
	}

	@Override
	public List<String> headers(String name) {
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
