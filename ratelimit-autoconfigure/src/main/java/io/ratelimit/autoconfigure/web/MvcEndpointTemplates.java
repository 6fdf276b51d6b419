package io.ratelimit.autoconfigure.web;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;
import org.springframework.web.servlet.handler.AbstractUrlHandlerMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;

/**
 * The endpoint templates the application serves, read from Spring MVC's handler mappings:
 * every pattern of every annotated mapping with each of its methods (all standard methods
 * when the mapping names none), and the patterns of URL-based mappings (view controllers,
 * the welcome page) as {@code GET}. These are the templates {@link MvcEndpointResolver}
 * can charge, so a policy row for any other template could never apply.
 * <p>
 * Handler mappings are complete only once every singleton exists, while the policy
 * settings that use this set are needed before that. So the set is read on first use
 * after all singletons are instantiated; before then, and when the application has
 * routes that cannot be listed (functional router functions), every template is accepted
 * rather than rows wrongly rejected. Other kinds of handler mappings add nothing: the
 * resolver charges their handlers to {@code UNKNOWN} unless they expose a best-matching
 * pattern.
 * <p>
 * The set is read as soon as all singletons exist, so that a route no template can name
 * (its pattern is too long once escaped) is reported once at startup
 * ({@link Diagnostic#W012}); the resolver charges such a route to {@code UNKNOWN}.
 */
public final class MvcEndpointTemplates implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(MvcEndpointTemplates.class);

	/** Methods a route mapped without one serves, in the order templates are listed. */
	static final List<String> STANDARD_METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private final ApplicationContext context;

	private volatile boolean ready;

	private volatile @Nullable Set<EndpointTemplate> templates;

	private volatile boolean complete;

	public MvcEndpointTemplates(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.ready = true;
		templates();
	}

	/**
	 * Returns whether the application may serve the given template.
	 * @param template an endpoint template
	 * @return {@code false} only when the application's routes are known and none is the
	 * template
	 */
	public boolean contains(EndpointTemplate template) {
		Set<EndpointTemplate> known = templates();
		return known == null || known.contains(template);
	}

	/**
	 * Returns the templates the application serves.
	 * @return the templates, or {@code null} if they are not known (yet)
	 */
	public @Nullable Set<EndpointTemplate> templates() {
		if (!this.ready) {
			return null;
		}
		Set<EndpointTemplate> known = this.templates;
		if (known == null) {
			known = read();
			this.templates = known;
		}
		return this.complete ? known : null;
	}

	private Set<EndpointTemplate> read() {
		Set<EndpointTemplate> known = new HashSet<>();
		Set<String> unnamed = new TreeSet<>();
		boolean complete = true;
		Collection<HandlerMapping> mappings = BeanFactoryUtils
			.beansOfTypeIncludingAncestors(this.context, HandlerMapping.class, true, false)
			.values();
		for (HandlerMapping mapping : mappings) {
			if (mapping instanceof RequestMappingInfoHandlerMapping annotated) {
				annotated.getHandlerMethods().keySet().forEach((info) -> addAnnotated(known, unnamed, info));
			}
			else if (mapping instanceof AbstractUrlHandlerMapping urlBased) {
				addUrlBased(known, unnamed, urlBased);
			}
			else if (mapping instanceof RouterFunctionMapping functional && functional.getRouterFunction() != null) {
				complete = false;
			}
		}
		this.complete = complete;
		if (!unnamed.isEmpty()) {
			logger.warn(Diagnostic.W012.message("No endpoint template can name the route(s) " + unnamed
					+ " (longer than a template may be once escaped), so their requests are charged to the "
					+ "UNKNOWN policy. Shorten the mapping's path to give it a policy of its own."));
		}
		return Set.copyOf(known);
	}

	private static void addAnnotated(Set<EndpointTemplate> known, Set<String> unnamed, RequestMappingInfo info) {
		List<String> methods = methodsOf(info);
		String version = HandlerVersions.versionOf(info);
		for (String pattern : info.getPatternValues()) {
			for (String method : methods) {
				add(known, unnamed, method, pattern, version);
			}
		}
	}

	private static void addUrlBased(Set<EndpointTemplate> known, Set<String> unnamed,
			AbstractUrlHandlerMapping mapping) {
		mapping.getPathPatternHandlerMap().forEach((pattern, handler) -> {
			// Static resources are served, but never charged to a template of their own.
			if (!(handler instanceof ResourceHttpRequestHandler)) {
				add(known, unnamed, "GET", pattern.getPatternString(), null);
			}
		});
		if (mapping.getRootHandler() != null) {
			add(known, unnamed, "GET", "/", null);
		}
	}

	/**
	 * Returns the methods an annotated route serves: those it declares, or every standard
	 * method when it declares none.
	 */
	static List<String> methodsOf(RequestMappingInfo info) {
		Set<RequestMethod> declared = info.getMethodsCondition().getMethods();
		return declared.isEmpty() ? STANDARD_METHODS : declared.stream().map(RequestMethod::name).toList();
	}

	/**
	 * Returns the templates an annotated route is charged to, as the resolver charges them
	 * (with its API version, if any); a pattern no template can name, and a catch-all, give
	 * none.
	 */
	static List<EndpointTemplate> templatesOf(RequestMappingInfo info) {
		Set<EndpointTemplate> known = new LinkedHashSet<>();
		addAnnotated(known, new HashSet<>(), info);
		return List.copyOf(known);
	}

	private static void add(Set<EndpointTemplate> known, Set<String> unnamed, String method, String pattern,
			@Nullable String version) {
		try {
			EndpointTemplate template = MvcEndpointResolver.routeTemplate(method, pattern, version);
			if (!template.isUnknown()) {
				known.add(template);
			}
		}
		catch (IllegalArgumentException ex) {
			// The resolver charges it to UNKNOWN; only its start, so the warning stays readable.
			unnamed.add((pattern.length() > 80) ? pattern.substring(0, 80) + "..." : pattern);
		}
	}

}
