package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Resolves the endpoint of a request by asking Spring MVC's handler mappings which handler
 * will serve it, the way {@code HandlerMappingIntrospector} does, and taking that handler's
 * best-matching pattern: the one annotated mappings expose during the lookup, or for
 * URL-based mappings (view controllers, the welcome page) the one they expose once the
 * handler runs. The template charged is therefore the handler that serves the request,
 * whatever encoding, dot segments or path parameters the request uses.
 * <p>
 * No handler, a lookup failure (405, 415, ...), a catch-all static-resource handler or a
 * non-standard method give {@link EndpointTemplate#UNKNOWN}: never the raw path.
 * <p>
 * Asking every mapping costs time in proportion to the number of routes, so the resolver
 * skips the annotated mappings none of whose patterns can match the path, and remembers
 * the template of a path whose handler depends on nothing but the method and the path (see
 * {@link MvcRoutes}). Both rest on a snapshot of the routes, checked against the mappings
 * at most once a second: a route registered or removed at runtime is seen within a second.
 */
public final class MvcEndpointResolver implements EndpointResolver {

	/** Methods that can form templates; anything else is UNKNOWN, so invented methods cannot mint templates. */
	private static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	private static final long ROUTES_CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ApplicationContext context;

	private final TimeSource time;

	private volatile @Nullable MvcRoutes routes;

	private final AtomicLong nextRoutesCheck = new AtomicLong();

	// Bounded: one entry per (method, route) of the application.
	private final Map<String, Map<String, EndpointTemplate>> templates = new ConcurrentHashMap<>();

	public MvcEndpointResolver(ApplicationContext context) {
		this(context, TimeSource.system());
	}

	MvcEndpointResolver(ApplicationContext context, TimeSource time) {
		this.context = Objects.requireNonNull(context, "context must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
	}

	@Override
	public EndpointTemplate resolve(RateLimitRequest request) {
		HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
		if (servletRequest == null) {
			return EndpointTemplate.UNKNOWN;
		}
		String method = servletRequest.getMethod();
		if (!STANDARD_METHODS.contains(method)) {
			return EndpointTemplate.UNKNOWN;
		}
		MvcRoutes routes = routes();
		String requestUri = servletRequest.getRequestURI();
		EndpointTemplate cached = routes.cached(method, requestUri);
		if (cached != null) {
			return cached;
		}
		IsolatedAttributesRequest lookup = new IsolatedAttributesRequest(servletRequest);
		RequestPath requestPath = ServletRequestPathUtils.parse(lookup);
		PathContainer path = requestPath.pathWithinApplication();
		ServletRequestPathUtils.setParsedRequestPath(requestPath, lookup);
		MvcRoutes.Match match = routes.match(lookup, path);
		if (match == null) {
			return EndpointTemplate.UNKNOWN;
		}
		EndpointTemplate template = template(method, match.pattern());
		if (match.byMethodAndPath()) {
			routes.cache(method, requestUri, template);
		}
		return template;
	}

	/**
	 * Returns the template remembered for the method and URI of a request, without asking
	 * the handler mappings: one this resolver found earlier for a request with the same
	 * method and URI, whose handler depended on nothing else.
	 * @param request the request
	 * @return the template, or {@code null} if none is remembered
	 */
	public @Nullable EndpointTemplate remembered(HttpServletRequest request) {
		return routes().cached(request.getMethod(), request.getRequestURI());
	}

	private EndpointTemplate template(String method, String pattern) {
		return this.templates.computeIfAbsent(pattern, (key) -> new ConcurrentHashMap<>())
			.computeIfAbsent(method, (key) -> templateOf(method, pattern));
	}

	/**
	 * The template of a route, or UNKNOWN for the rare route no template can name (too long
	 * once escaped), which {@link MvcEndpointTemplates} reports at startup: failing here
	 * would fail every request to the route, and so switch its limit off.
	 */
	private static EndpointTemplate templateOf(String method, String pattern) {
		try {
			return EndpointTemplate.fromPattern(method, pattern);
		}
		catch (IllegalArgumentException ex) {
			return EndpointTemplate.UNKNOWN;
		}
	}

	/**
	 * Returns the snapshot of the routes, taking a new one when the mappings' routes have
	 * changed since; one request a second checks.
	 */
	private MvcRoutes routes() {
		MvcRoutes routes = this.routes;
		long now = this.time.nanoTime();
		if (routes == null) {
			routes = MvcRoutes.of(handlerMappings());
			this.routes = routes;
			this.nextRoutesCheck.set(now + ROUTES_CHECK_INTERVAL_NANOS);
			return routes;
		}
		long next = this.nextRoutesCheck.get();
		if (now - next >= 0 && this.nextRoutesCheck.compareAndSet(next, now + ROUTES_CHECK_INTERVAL_NANOS)
				&& !routes.isCurrent()) {
			routes = MvcRoutes.of(routes.mappings());
			this.routes = routes;
		}
		return routes;
	}

	private List<HandlerMapping> handlerMappings() {
		List<HandlerMapping> mappings = new ArrayList<>(
				BeanFactoryUtils.beansOfTypeIncludingAncestors(this.context, HandlerMapping.class, true, false)
					.values());
		AnnotationAwareOrderComparator.sort(mappings);
		return List.copyOf(mappings);
	}

}
