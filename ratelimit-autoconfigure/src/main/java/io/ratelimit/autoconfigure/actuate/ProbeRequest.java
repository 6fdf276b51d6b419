package io.ratelimit.autoconfigure.actuate;

import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

import io.ratelimit.autoconfigure.web.IsolatedAttributesRequest;
import io.ratelimit.core.RateLimitRequest;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * A request that was never sent: the method and path an operator asks about, presented
 * over the admin request that asks, so that an endpoint resolver (Spring MVC's handler
 * mappings) can resolve it like a real one. It has no headers, parameters, body or
 * attributes of its own, so nothing of the admin request (its {@code Accept}, its query)
 * takes part in the match, and nothing the lookup sets leaks back.
 */
final class ProbeRequest implements RateLimitRequest {

	private final String method;

	private final String path;

	private final HttpServletRequest servletRequest;

	ProbeRequest(HttpServletRequest admin, String method, String path) {
		this.method = method;
		this.path = path;
		this.servletRequest = new ProbeServletRequest(admin, method, path);
	}

	@Override
	public String method() {
		return this.method;
	}

	@Override
	public String path() {
		return this.path;
	}

	@Override
	public @Nullable String remoteAddress() {
		return null;
	}

	@Override
	public List<String> headers(String name) {
		return List.of();
	}

	@Override
	public <T> @Nullable T unwrap(Class<T> type) {
		return type.isInstance(this.servletRequest) ? type.cast(this.servletRequest) : null;
	}

	private static final class ProbeServletRequest extends IsolatedAttributesRequest {

		private final String method;

		private final String path;

		ProbeServletRequest(HttpServletRequest admin, String method, String path) {
			super(admin);
			this.method = method;
			this.path = path;
		}

		@Override
		public String getMethod() {
			return this.method;
		}

		@Override
		public String getRequestURI() {
			return getContextPath() + this.path;
		}

		@Override
		public StringBuffer getRequestURL() {
			StringBuffer url = new StringBuffer(getScheme()).append("://").append(getServerName());
			return url.append(':').append(getServerPort()).append(getRequestURI());
		}

		@Override
		public String getServletPath() {
			// As for the DispatcherServlet mapped to "/": the whole path is the servlet path.
			return this.path;
		}

		@Override
		public @Nullable String getPathInfo() {
			return null;
		}

		@Override
		public @Nullable String getQueryString() {
			return null;
		}

		@Override
		public DispatcherType getDispatcherType() {
			return DispatcherType.REQUEST;
		}

		@Override
		public @Nullable String getHeader(String name) {
			return null;
		}

		@Override
		public Enumeration<String> getHeaders(String name) {
			return Collections.emptyEnumeration();
		}

		@Override
		public Enumeration<String> getHeaderNames() {
			return Collections.emptyEnumeration();
		}

		@Override
		public long getDateHeader(String name) {
			return -1;
		}

		@Override
		public int getIntHeader(String name) {
			return -1;
		}

		@Override
		public @Nullable String getContentType() {
			return null;
		}

		@Override
		public int getContentLength() {
			return -1;
		}

		@Override
		public long getContentLengthLong() {
			return -1;
		}

		@Override
		public @Nullable String getParameter(String name) {
			return null;
		}

		@Override
		public Map<String, String[]> getParameterMap() {
			return Map.of();
		}

		@Override
		public Enumeration<String> getParameterNames() {
			return Collections.emptyEnumeration();
		}

		@Override
		public String @Nullable [] getParameterValues(String name) {
			return null;
		}

	}

}
