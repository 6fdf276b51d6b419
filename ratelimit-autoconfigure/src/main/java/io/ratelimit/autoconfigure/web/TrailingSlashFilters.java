package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.web.filter.UrlHandlerFilter;

/**
 * The application's {@link UrlHandlerFilter}s, which trim the trailing slash of a request
 * before the handler sees it (by wrapping the request) or answer a redirect without it. As
 * ordinary filter beans they run after the limiter, so the limiter applies them itself: it
 * hands the request to each filter, with a response that keeps nothing, and resolves the
 * request the filter passes on, or none if the filter answered. The filters' own rules
 * decide, so they cannot drift from what the handler then sees. A filter that already ran
 * before the limiter finds nothing left to trim.
 * <p>
 * Only a request whose URI ends with {@code /} is handed over: no other is ever changed.
 * A filter's {@code intercept} consumer, if configured, also sees the requests handed over.
 */
final class TrailingSlashFilters {

	private static final HttpServletResponse DISCARDING_RESPONSE = (HttpServletResponse) Proxy.newProxyInstance(
			TrailingSlashFilters.class.getClassLoader(), new Class<?>[] { HttpServletResponse.class },
			(proxy, method, arguments) -> defaultValue(method.getReturnType()));

	private final List<UrlHandlerFilter> filters;

	private TrailingSlashFilters(List<UrlHandlerFilter> filters) {
		this.filters = filters;
	}

	/**
	 * Finds the {@link UrlHandlerFilter}s of an application: filter beans, and filters of
	 * {@link FilterRegistrationBean}s.
	 * @param context the application context
	 * @return the filters, possibly none
	 */
	static TrailingSlashFilters of(ApplicationContext context) {
		List<UrlHandlerFilter> filters = new ArrayList<>(
				BeanFactoryUtils.beansOfTypeIncludingAncestors(context, UrlHandlerFilter.class, false, false).values());
		for (FilterRegistrationBean<?> registration : BeanFactoryUtils
			.beansOfTypeIncludingAncestors(context, FilterRegistrationBean.class, false, false)
			.values()) {
			if (registration.getFilter() instanceof UrlHandlerFilter filter && !filters.contains(filter)) {
				filters.add(filter);
			}
		}
		return new TrailingSlashFilters(List.copyOf(filters));
	}

	/**
	 * Returns the request as the handler will see it.
	 * @param request the request as the limiter sees it
	 * @return the request the filters pass on: the same one unless a filter trimmed its
	 * trailing slash; {@code null} if a filter answers the request itself (a redirect)
	 */
	@Nullable HttpServletRequest seenByHandler(HttpServletRequest request) {
		if (!mayChange(request.getRequestURI())) {
			return request;
		}
		HttpServletRequest seen = request;
		for (UrlHandlerFilter filter : this.filters) {
			Capture capture = new Capture();
			try {
				filter.doFilter(new IsolatedAttributesRequest(seen), DISCARDING_RESPONSE, capture);
			}
			catch (IOException | ServletException | RuntimeException ex) {
				// The filter will fail the same way in the chain, before any handler sees it.
				return request;
			}
			if (capture.passedOn == null) {
				return null;
			}
			seen = capture.passedOn;
		}
		return seen;
	}

	/**
	 * Returns whether the filters may pass a request with the given URI on changed: only one
	 * ending with {@code /}, and only if there are filters.
	 * @param uri the request URI
	 * @return {@code false} if the handler surely sees the URI as it is
	 */
	boolean mayChange(String uri) {
		return !this.filters.isEmpty() && uri.length() >= 2 && uri.charAt(uri.length() - 1) == '/';
	}

	/** Nothing, as the method's return type spells it: {@code false}, zero or {@code null}. */
	private static @Nullable Object defaultValue(Class<?> type) {
		return type.isPrimitive() && type != void.class ? Array.get(Array.newInstance(type, 1), 0) : null;
	}

	/** Catches the request a filter passes on, instead of passing it further. */
	private static final class Capture implements FilterChain {

		private @Nullable HttpServletRequest passedOn;

		@Override
		public void doFilter(ServletRequest request, ServletResponse response) {
			this.passedOn = (HttpServletRequest) request;
		}

	}

}
