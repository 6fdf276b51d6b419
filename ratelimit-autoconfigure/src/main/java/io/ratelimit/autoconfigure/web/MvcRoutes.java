package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;
import org.springframework.web.servlet.handler.AbstractHandlerMapping;
import org.springframework.web.servlet.handler.AbstractUrlHandlerMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.UrlPathHelper;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The application's handler mappings in dispatch order, as {@link MvcEndpointResolver}
 * asks them, with what makes asking cheaper: an index of the routes of each annotated
 * mapping ({@link RequestMappingIndex}), so that a mapping none of whose patterns can match
 * a path is not asked; and a bounded cache of the templates of paths whose handler is
 * decided by the method and the path alone.
 * <p>
 * A path enters the cache only if it matched a route, every mapping asked before the one
 * that matched provably returns nothing for that path whatever the request's headers and
 * parameters, and no route with a header, parameter, content-type, API version or custom
 * condition matches it (in a mapping with an API version strategy, no route qualifies). Paths that match no route never enter it, and neither do long paths nor
 * {@code OPTIONS} (CORS preflights are matched by their requested method), so random paths
 * cannot fill it with anything but evictions, and what it holds is what Spring MVC would
 * answer. A snapshot: the resolver replaces it when a mapping's routes change.
 */
final class MvcRoutes {

	/** The most paths whose templates are cached. */
	static final int CACHE_SIZE = 10_000;

	/** Longer paths are not cached, so the cache stays small whatever paths clients send. */
	static final int MAX_CACHED_PATH_LENGTH = 256;

	/** The methods whose templates are cached, in the order of {@link #methodIndex}. */
	private static final int CACHEABLE_METHODS = 6;

	private final List<HandlerMapping> mappings;

	private final List<@Nullable RequestMappingIndex> indexes;

	private final List<HandlerVersions> versions;

	/**
	 * Keyed by path alone, each entry holding a template per method, so that a hit allocates
	 * no key (a method-and-path key was 24 of the limiter's bytes per request).
	 */
	private final Cache<String, PathTemplates> templates = Caffeine.newBuilder()
		.maximumSize(CACHE_SIZE)
		.executor(Runnable::run)
		.build();

	private MvcRoutes(List<HandlerMapping> mappings) {
		this.mappings = mappings;
		this.indexes = new ArrayList<>(mappings.size());
		this.versions = new ArrayList<>(mappings.size());
		for (HandlerMapping mapping : mappings) {
			boolean annotated = mapping instanceof RequestMappingInfoHandlerMapping;
			this.indexes.add(annotated ? RequestMappingIndex.of((RequestMappingInfoHandlerMapping) mapping) : null);
			this.versions.add(annotated ? HandlerVersions.of((RequestMappingInfoHandlerMapping) mapping)
					: HandlerVersions.NONE);
		}
	}

	/**
	 * Takes a snapshot of the routes of the given handler mappings.
	 * @param mappings the handler mappings, in dispatch order
	 * @return the snapshot
	 */
	static MvcRoutes of(List<HandlerMapping> mappings) {
		return new MvcRoutes(mappings);
	}

	/**
	 * Returns the handler mappings of this snapshot.
	 * @return the mappings, in dispatch order
	 */
	List<HandlerMapping> mappings() {
		return this.mappings;
	}

	/**
	 * Returns whether every annotated mapping still has the routes of this snapshot, and
	 * the versioned routes their handlers.
	 * @return whether the snapshot is up to date
	 */
	boolean isCurrent() {
		for (int i = 0; i < this.mappings.size(); i++) {
			RequestMappingIndex index = this.indexes.get(i);
			if (index != null && !index.isCurrent((RequestMappingInfoHandlerMapping) this.mappings.get(i))) {
				return false;
			}
			if (this.mappings.get(i) instanceof RequestMappingInfoHandlerMapping annotated
					&& !this.versions.get(i).isCurrent(annotated)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns the cached template of a request.
	 * <p>
	 * The cache is keyed by the raw request URI, which in one deployment decides the path
	 * within the application (the context path and the servlet mapping are the URI's), so a
	 * hit costs no parsing.
	 * @param method the request method
	 * @param requestUri the request URI, as {@code getRequestURI()} returns it
	 * @return the template, or {@code null} if none is cached
	 */
	@Nullable EndpointTemplate cached(String method, String requestUri) {
		int index = cacheIndex(method, requestUri);
		PathTemplates path = (index >= 0) ? this.templates.getIfPresent(requestUri) : null;
		return (path != null) ? path.byMethod.get(index) : null;
	}

	/**
	 * Caches the template of a request whose handler depends on its method and path alone.
	 * @param method the request method
	 * @param requestUri the request URI, as {@code getRequestURI()} returns it
	 * @param template the template of the handler
	 */
	void cache(String method, String requestUri, EndpointTemplate template) {
		int index = cacheIndex(method, requestUri);
		if (index >= 0) {
			this.templates.get(requestUri, (path) -> new PathTemplates()).byMethod.set(index, template);
		}
	}

	/**
	 * The method's slot in a path's entry, or -1 if the request is not cached.
	 */
	private static int cacheIndex(String method, String requestUri) {
		return (requestUri.length() <= MAX_CACHED_PATH_LENGTH) ? methodIndex(method) : -1;
	}

	private static int methodIndex(String method) {
		return switch (method) {
			case "GET" -> 0;
			case "HEAD" -> 1;
			case "POST" -> 2;
			case "PUT" -> 3;
			case "PATCH" -> 4;
			case "DELETE" -> 5;
			default -> -1;
		};
	}

	/**
	 * Asks the handler mappings, in order, which handler will serve a request, the way the
	 * {@code DispatcherServlet} does, skipping the annotated mappings whose index shows
	 * that none of their patterns matches the path.
	 * @param lookup the request, with attributes of its own and its path parsed
	 * @param path the path within the application
	 * @return the handler and its pattern, or {@code null} if no handler will serve the
	 * request
	 */
	@Nullable Match match(HttpServletRequest lookup, PathContainer path) {
		boolean byPath = true;
		for (int i = 0; i < this.mappings.size(); i++) {
			HandlerMapping mapping = this.mappings.get(i);
			RequestMappingIndex index = usableIndex(i);
			if (index != null && !index.mayMatch(path)) {
				// No pattern matches: the mapping would return no handler and raise no error.
				continue;
			}
			HandlerExecutionChain chain;
			try {
				chain = mapping.getHandler(lookup);
			}
			catch (Exception ex) {
				// 405, 415, 406 and the like: no handler will serve this request.
				return null;
			}
			if (chain == null) {
				byPath = byPath && ((index != null) ? index.matchesNothing(path) : isEmptyRouter(mapping));
				continue;
			}
			String pattern = templatePattern(mapping, chain, lookup);
			boolean byMethodAndPath = pattern != null && byPath && index != null
					&& index.matchesOnlyByMethodAndPath(path);
			RequestMappingInfo route = (pattern != null) ? this.versions.get(i).routeOf(chain.getHandler()) : null;
			return new Match(pattern, route, byMethodAndPath, mapping, chain.getHandler());
		}
		return null;
	}

	/**
	 * Returns whether the static resource a matched resource handler would serve exists, by
	 * asking the handler the way it asks itself when it serves the request: a resource
	 * handler takes every path under its pattern, and answers 404 for the missing ones.
	 * @param match a match whose handler is a {@link ResourceHttpRequestHandler}
	 * @param lookup the request the match was found with
	 * @param path the path within the application
	 * @return {@code false} only if the handler surely finds no resource
	 */
	static boolean resourceExists(Match match, HttpServletRequest lookup, PathContainer path) {
		if (!(match.mapping() instanceof AbstractUrlHandlerMapping urlMapping)
				|| !(match.handler() instanceof ResourceHttpRequestHandler resources)) {
			return true;
		}
		PathPattern pattern = bestPattern(urlMapping.getPathPatternHandlerMap(), path);
		if (pattern == null || urlMapping.getPathPatternHandlerMap().get(pattern) != resources) {
			return true;
		}
		// The handler reads the path the mapping exposes only once the handler runs, as
		// AbstractUrlHandlerMapping.lookupHandler computes it.
		String pathWithinMapping = pattern.extractPathWithinPattern(path).value();
		lookup.setAttribute(HandlerMapping.PATH_WITHIN_HANDLER_MAPPING_ATTRIBUTE,
				UrlPathHelper.defaultInstance.removeSemicolonContent(pathWithinMapping));
		return StaticResources.exists(resources, lookup);
	}

	/**
	 * Returns the index of a mapping, if it returns no handler when no route matches: a
	 * default handler would be returned instead.
	 */
	private @Nullable RequestMappingIndex usableIndex(int i) {
		RequestMappingIndex index = this.indexes.get(i);
		return (index != null && ((AbstractHandlerMapping) this.mappings.get(i)).getDefaultHandler() == null) ? index
				: null;
	}

	private static boolean isEmptyRouter(HandlerMapping mapping) {
		return mapping.getClass() == RouterFunctionMapping.class && mapping instanceof RouterFunctionMapping router
				&& router.getRouterFunction() == null && router.getDefaultHandler() == null;
	}

	private static @Nullable String templatePattern(HandlerMapping mapping, HandlerExecutionChain chain,
			HttpServletRequest lookup) {
		if (chain.getHandler() instanceof ResourceHttpRequestHandler) {
			return null;
		}
		Object pattern = lookup.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
		if (pattern == null && mapping instanceof AbstractUrlHandlerMapping urlMapping) {
			pattern = urlPattern(urlMapping, lookup);
		}
		if (pattern == null) {
			return null;
		}
		String text = pattern.toString();
		return text.equals("/**") ? null : text;
	}

	/**
	 * URL-based mappings (view controllers, the welcome page, {@code SimpleUrlHandlerMapping})
	 * expose their pattern only while the handler's interceptors run, never during the
	 * lookup, so find it the way they choose their handler: the most specific of their
	 * patterns that matches the path (the first registered on a tie), else {@code /} for
	 * the root handler. A default handler would expose the raw path and stays UNKNOWN, and
	 * so do static resources, also for the CORS preflights answered in their place.
	 */
	private static @Nullable String urlPattern(AbstractUrlHandlerMapping mapping, HttpServletRequest lookup) {
		PathContainer path = ServletRequestPathUtils.getParsedRequestPath(lookup).pathWithinApplication();
		Map<PathPattern, Object> handlers = mapping.getPathPatternHandlerMap();
		PathPattern best = bestPattern(handlers, path);
		if (best != null) {
			return (handlers.get(best) instanceof ResourceHttpRequestHandler) ? null : best.getPatternString();
		}
		boolean root = UrlPathHelper.defaultInstance.removeSemicolonContent(path.value()).equals("/");
		return (root && mapping.getRootHandler() != null) ? "/" : null;
	}

	/** The most specific of a URL-based mapping's patterns that matches, the first registered on a tie. */
	private static @Nullable PathPattern bestPattern(Map<PathPattern, Object> handlers, PathContainer path) {
		PathPattern best = null;
		for (PathPattern pattern : handlers.keySet()) {
			boolean moreSpecific = best == null || PathPattern.SPECIFICITY_COMPARATOR.compare(pattern, best) < 0;
			if (moreSpecific && pattern.matches(path)) {
				best = pattern;
			}
		}
		return best;
	}

	/**
	 * The handler that will serve a request, and its pattern.
	 *
	 * @param pattern the handler's best-matching pattern, or {@code null} if the handler
	 * serves the request without a route pattern: static resources, a catch-all
	 * {@code /**}, a default handler
	 * @param route the route the handler was registered with, if it has an API version
	 * @param byMethodAndPath whether any request with the same method and path is served by
	 * the same pattern, whatever else it carries
	 * @param mapping the handler mapping that found the handler
	 * @param handler the handler
	 */
	record Match(@Nullable String pattern, @Nullable RequestMappingInfo route, boolean byMethodAndPath,
			HandlerMapping mapping, Object handler) {
	}

	/** The cached templates of one path, by {@link #methodIndex}. */
	private static final class PathTemplates {

		private final AtomicReferenceArray<EndpointTemplate> byMethod = new AtomicReferenceArray<>(CACHEABLE_METHODS);

	}

}
