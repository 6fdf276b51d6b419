package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.server.PathContainer;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractUrlHandlerMapping;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.UrlPathHelper;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The test oracle of {@link MvcEndpointResolver}: the same questions put to Spring MVC's
 * handler mappings, every mapping asked on every request, with no index and no cache.
 */
final class ReferenceEndpointResolver {

	/** Methods that can form templates; anything else is UNKNOWN, so invented methods cannot mint templates. */
	private static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	private final ApplicationContext context;

	private volatile @Nullable List<HandlerMapping> handlerMappings;

	ReferenceEndpointResolver(ApplicationContext context) {
		this.context = context;
	}

	EndpointTemplate resolve(HttpServletRequest servletRequest) {
		if (!STANDARD_METHODS.contains(servletRequest.getMethod())) {
			return EndpointTemplate.UNKNOWN;
		}
		String pattern = bestMatchingPattern(servletRequest);
		if (pattern == null) {
			return EndpointTemplate.UNKNOWN;
		}
		return EndpointTemplate.fromPattern(servletRequest.getMethod(), pattern);
	}

	private @Nullable String bestMatchingPattern(HttpServletRequest request) {
		IsolatedAttributesRequest lookup = new IsolatedAttributesRequest(request);
		ServletRequestPathUtils.parseAndCache(lookup);
		for (HandlerMapping mapping : handlerMappings()) {
			HandlerExecutionChain chain;
			try {
				chain = mapping.getHandler(lookup);
			}
			catch (Exception ex) {
				// 405, 415, 406 and the like: no handler will serve this request.
				return null;
			}
			if (chain != null) {
				return templatePattern(mapping, chain, lookup);
			}
		}
		return null;
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
		PathPattern best = handlers.keySet()
			.stream()
			.filter((pattern) -> pattern.matches(path))
			.min(PathPattern.SPECIFICITY_COMPARATOR)
			.orElse(null);
		if (best != null) {
			return (handlers.get(best) instanceof ResourceHttpRequestHandler) ? null : best.getPatternString();
		}
		boolean root = UrlPathHelper.defaultInstance.removeSemicolonContent(path.value()).equals("/");
		return (root && mapping.getRootHandler() != null) ? "/" : null;
	}

	private List<HandlerMapping> handlerMappings() {
		List<HandlerMapping> mappings = this.handlerMappings;
		if (mappings == null) {
			mappings = new ArrayList<>(BeanFactoryUtils
				.beansOfTypeIncludingAncestors(this.context, HandlerMapping.class, true, false)
				.values());
			AnnotationAwareOrderComparator.sort(mappings);
			this.handlerMappings = mappings;
		}
		return mappings;
	}

}
