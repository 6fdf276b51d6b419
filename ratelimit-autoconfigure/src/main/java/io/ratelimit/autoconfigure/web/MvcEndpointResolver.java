package io.ratelimit.autoconfigure.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
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
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Resolves the endpoint of a request by asking Spring MVC's handler mappings which handler
 * will serve it, the way {@code HandlerMappingIntrospector} does, and taking that handler's
 * best-matching pattern: the one annotated mappings expose during the lookup, or for
 * URL-based mappings (view controllers, the welcome page) the one they expose once the
 * handler runs. The template charged is therefore the handler that serves the request,
 * whatever encoding, dot segments or path parameters the request uses. The request is
 * resolved as the application's {@code UrlHandlerFilter}s pass it on to the handler
 * ({@link TrailingSlashFilters}), since they run after the limiter.
 * <p>
 * No handler, a lookup failure (405, 415, ...), a catch-all static-resource handler or a
 * non-standard method give {@link EndpointTemplate#UNKNOWN}: never the raw path. Where a
 * handler serves the request all the same (static resources, a catch-all {@code /**}, a
 * method-less mapping), that is {@link EndpointTemplate#SERVED_UNKNOWN}, so that rejecting
 * unknown endpoints never refuses it. A route mapped with an API version has the version in
 * its template ({@link #routeTemplate}).
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

	/** The template path of a catch-all route, which is not a template (DESIGN 3.1). */
	static final String CATCH_ALL = "/**";

	/** What separates a versioned route's path from its version in its template. */
	private static final String VERSION = ";version=";

	private static final long ROUTES_CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long whether a static resource exists is remembered: resources are rarely added
	 * or removed at runtime, and one that is gets its answer within this time.
	 */
	static final Duration RESOURCE_LOOKUP_EXPIRY = Duration.ofSeconds(5);

	/** The most request URIs whether a static resource exists is remembered for. */
	static final int RESOURCE_LOOKUPS = 10_000;

	private final ApplicationContext context;

	private final TimeSource time;

	private volatile @Nullable MvcRoutes routes;

	private final AtomicLong nextRoutesCheck = new AtomicLong();

	private volatile @Nullable TrailingSlashFilters trailingSlashFilters;

	// Bounded: one entry per (method, route) of the application.
	private final Map<String, Map<String, EndpointTemplate>> templates = new ConcurrentHashMap<>();

	private final boolean findsServedUnknown;

	/**
	 * Whether the static resource of a request URI exists, so that random paths repeated
	 * cost a lookup once, not each time; {@code null} unless this resolver finds that out.
	 */
	private final @Nullable Cache<String, Boolean> resources;

	/**
	 * Creates a resolver that tells requests nothing serves ({@link EndpointTemplate#UNKNOWN})
	 * from those served without a template ({@link EndpointTemplate#SERVED_UNKNOWN}) where
	 * that costs nothing, and otherwise answers {@code UNKNOWN}.
	 * @param context the application context whose handler mappings serve requests
	 */
	public MvcEndpointResolver(ApplicationContext context) {
		this(context, false);
	}

	/**
	 * Creates a resolver.
	 * @param context the application context whose handler mappings serve requests
	 * @param findsServedUnknown whether to also find out, at a cost, whether a request a
	 * static-resource handler takes has a resource, and whether a non-standard method is
	 * served; worth it only when requests nothing serves are rejected
	 */
	public MvcEndpointResolver(ApplicationContext context, boolean findsServedUnknown) {
		this(context, TimeSource.system(), findsServedUnknown);
	}

	MvcEndpointResolver(ApplicationContext context, TimeSource time) {
		this(context, time, false);
	}

	MvcEndpointResolver(ApplicationContext context, TimeSource time, boolean findsServedUnknown) {
		this.context = Objects.requireNonNull(context, "context must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
		this.findsServedUnknown = findsServedUnknown;
		this.resources = findsServedUnknown ? Caffeine.newBuilder()
			.maximumSize(RESOURCE_LOOKUPS)
			.expireAfterWrite(RESOURCE_LOOKUP_EXPIRY)
			.ticker(time::nanoTime)
			.executor(Runnable::run)
			.build() : null;
	}

	@Override
	public EndpointTemplate resolve(RateLimitRequest request) {
		HttpServletRequest received = request.unwrap(HttpServletRequest.class);
		if (received == null) {
			return EndpointTemplate.UNKNOWN;
		}
		HttpServletRequest servletRequest = trailingSlashFilters().seenByHandler(received);
		if (servletRequest == null) {
			// A filter answers it (a redirect without the trailing slash): served, by no handler.
			return EndpointTemplate.SERVED_UNKNOWN;
		}
		String method = servletRequest.getMethod();
		boolean standard = STANDARD_METHODS.contains(method);
		if (!standard && !this.findsServedUnknown) {
			return EndpointTemplate.UNKNOWN;
		}
		MvcRoutes routes = routes();
		String requestUri = servletRequest.getRequestURI();
		EndpointTemplate cached = standard ? routes.cached(method, requestUri) : null;
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
		String pattern = match.pattern();
		if (!standard || pattern == null) {
			// An invented method never mints a template, even when a handler serves it.
			return servedWithoutTemplate(match, lookup, path);
		}
		EndpointTemplate template = template(method, pattern, match.route());
		if (match.byMethodAndPath()) {
			routes.cache(method, requestUri, template);
		}
		return template;
	}

	/**
	 * A request a handler takes without a template: served, unless it is a static resource
	 * the handler will not find (and this resolver is to find that out).
	 */
	private EndpointTemplate servedWithoutTemplate(MvcRoutes.Match match, HttpServletRequest lookup,
			PathContainer path) {
		boolean missingResource = this.resources != null && match.handler() instanceof ResourceHttpRequestHandler
				&& !resourceExists(this.resources, match, lookup, path);
		return missingResource ? EndpointTemplate.UNKNOWN : EndpointTemplate.SERVED_UNKNOWN;
	}

	/**
	 * Whether the static resource of a request exists, remembered by request URI, which in
	 * one deployment decides the path the resource handler looks up (as for the templates
	 * of {@link MvcRoutes}); longer URIs are looked up every time, so that the cache stays
	 * small whatever paths clients send.
	 */
	private static boolean resourceExists(Cache<String, Boolean> resources, MvcRoutes.Match match,
			HttpServletRequest lookup, PathContainer path) {
		String requestUri = lookup.getRequestURI();
		if (requestUri.length() > MvcRoutes.MAX_CACHED_PATH_LENGTH) {
			return MvcRoutes.resourceExists(match, lookup, path);
		}
		return resources.get(requestUri, (uri) -> MvcRoutes.resourceExists(match, lookup, path));
	}

	/**
	 * Returns the template remembered for the method and URI of a request, without asking
	 * the handler mappings: one this resolver found earlier for a request with the same
	 * method and URI, whose handler depended on nothing else.
	 * <p>
	 * Templates are remembered under the URI the handler sees, after the application's
	 * {@code UrlHandlerFilter}s, so a URI as received that they may still change (a trailing
	 * slash) has none of its own: the one remembered under it belongs to a request they
	 * trimmed to it.
	 * @param request the request, as received
	 * @return the template, or {@code null} if none is remembered
	 */
	public @Nullable EndpointTemplate remembered(HttpServletRequest request) {
		String requestUri = request.getRequestURI();
		return trailingSlashFilters().mayChange(requestUri) ? null : routes().cached(request.getMethod(), requestUri);
	}

	private EndpointTemplate template(String method, String pattern, @Nullable RequestMappingInfo route) {
		String version = (route != null) ? HandlerVersions.versionOf(route) : null;
		// Versions of one pattern are templates of their own, so they are remembered apart.
		String key = (version != null) ? pattern + VERSION + version : pattern;
		return this.templates.computeIfAbsent(key, (k) -> new ConcurrentHashMap<>())
			.computeIfAbsent(method, (m) -> templateOf(method, pattern, version));
	}

	/**
	 * The template of a route, or UNKNOWN (served) for the rare route no template can name
	 * (too long once escaped), which {@link MvcEndpointTemplates} reports at startup:
	 * failing here would fail every request to the route, and so switch its limit off.
	 */
	private static EndpointTemplate templateOf(String method, String pattern, @Nullable String version) {
		try {
			return routeTemplate(method, pattern, version);
		}
		catch (IllegalArgumentException ex) {
			return EndpointTemplate.SERVED_UNKNOWN;
		}
	}

	/**
	 * The template of a route, as this resolver charges it and {@link MvcEndpointTemplates}
	 * lists it, so that the two cannot disagree. Versions of one path that different
	 * handlers serve get templates of their own, e.g. {@code GET /api/orders/export;version=2},
	 * which no request path can spell (a path parameter never reaches a pattern). A
	 * catch-all such as {@code /{*path}} is no template, whatever its version: it would
	 * swallow UNKNOWN.
	 * @param method the request method
	 * @param pattern the route's path pattern
	 * @param version the API version the route was mapped with
	 * ({@link HandlerVersions#versionOf}), if any
	 * @return the template, or {@link EndpointTemplate#SERVED_UNKNOWN} for a catch-all
	 * @throws IllegalArgumentException if no template can name the route
	 */
	static EndpointTemplate routeTemplate(String method, String pattern, @Nullable String version) {
		EndpointTemplate template = EndpointTemplate.fromPattern(method, pattern);
		if (CATCH_ALL.equals(template.path())) {
			return EndpointTemplate.SERVED_UNKNOWN;
		}
		return (version != null) ? EndpointTemplate.fromPattern(method, pattern + VERSION + version) : template;
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

	private TrailingSlashFilters trailingSlashFilters() {
		TrailingSlashFilters filters = this.trailingSlashFilters;
		if (filters == null) {
			filters = TrailingSlashFilters.of(this.context);
			this.trailingSlashFilters = filters;
		}
		return filters;
	}

	private List<HandlerMapping> handlerMappings() {
		List<HandlerMapping> mappings = new ArrayList<>(
				BeanFactoryUtils.beansOfTypeIncludingAncestors(this.context, HandlerMapping.class, true, false)
					.values());
		AnnotationAwareOrderComparator.sort(mappings);
		return List.copyOf(mappings);
	}

}
