package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Charges every request a login is served by to the login's template, so that no way of
 * reaching the login handler skips the account's bucket:
 * <ul>
 * <li>A handler mapped without a method ({@code @RequestMapping("/api/login")}), or with
 * several, serves the same body under every method it accepts: a {@code PUT} to it is the
 * login as much as the configured {@code POST}, so it is charged as the login, with the
 * login's policy and the account's bucket. A template that another handler also maps is
 * left alone, since which of the two serves it depends on more than the method.</li>
 * <li>A login that no handler serves but a filter does (Spring Security's form login
 * processes {@code POST /login} in its filter chain) would be {@code UNKNOWN}: a request of
 * its method whose path matches it, the way Spring's path patterns match (decoded, path
 * parameters ignored), is charged as the login instead.</li>
 * </ul>
 * The application's routes are read once, on the first request, when every handler
 * mapping is complete; routes registered later are not considered.
 */
public final class LoginEndpointResolver implements EndpointResolver {

	private static final List<String> STANDARD_METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	private final EndpointResolver delegate;

	private final ApplicationContext context;

	private final Set<EndpointTemplate> logins;

	private volatile @Nullable Routes routes;

	/**
	 * Creates a resolver.
	 * @param delegate resolves the handler's template, as if there were no login
	 * @param context where the application's handler mappings are
	 * @param logins the configured login templates
	 */
	public LoginEndpointResolver(EndpointResolver delegate, ApplicationContext context, Set<EndpointTemplate> logins) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.context = Objects.requireNonNull(context, "context must not be null");
		this.logins = Set.copyOf(logins);
	}

	@Override
	public EndpointTemplate resolve(RateLimitRequest request) {
		EndpointTemplate endpoint = this.delegate.resolve(request);
		Routes routes = routes();
		if (endpoint.isUnknown()) {
			return routes.servedByFilter(request);
		}
		return routes.aliases.getOrDefault(endpoint, endpoint);
	}

	/**
	 * Returns the logins that no handler of the application serves, which only a filter
	 * can serve.
	 * @return the login templates without a handler
	 */
	public Set<EndpointTemplate> withoutHandler() {
		Set<EndpointTemplate> without = new HashSet<>();
		routes().servedByFilter.forEach((login) -> without.add(login.template()));
		return without;
	}

	private Routes routes() {
		Routes routes = this.routes;
		if (routes == null) {
			routes = read();
			this.routes = routes;
		}
		return routes;
	}

	private Routes read() {
		Map<EndpointTemplate, Set<HandlerMethod>> handlersOf = new HashMap<>();
		Map<HandlerMethod, Set<EndpointTemplate>> templatesOf = new HashMap<>();
		for (RequestMappingInfoHandlerMapping mapping : BeanFactoryUtils
			.beansOfTypeIncludingAncestors(this.context, RequestMappingInfoHandlerMapping.class, true, false)
			.values()) {
			mapping.getHandlerMethods().forEach((info, handler) -> {
				for (EndpointTemplate template : templates(info)) {
					handlersOf.computeIfAbsent(template, (key) -> new HashSet<>()).add(handler);
					templatesOf.computeIfAbsent(handler, (key) -> new HashSet<>()).add(template);
				}
			});
		}
		Map<EndpointTemplate, EndpointTemplate> aliases = new HashMap<>();
		List<FilterServedLogin> servedByFilter = new ArrayList<>();
		for (EndpointTemplate login : this.logins) {
			Set<HandlerMethod> handlers = handlersOf.getOrDefault(login, Set.of());
			if (handlers.isEmpty()) {
				servedByFilter.add(new FilterServedLogin(login, PathPatternParser.defaultInstance.parse(Objects.requireNonNull(login.path()))));
			}
			for (HandlerMethod handler : handlers) {
				for (EndpointTemplate served : templatesOf.get(handler)) {
					if (!served.equals(login) && handlersOf.get(served).size() == 1
							&& !this.logins.contains(served)) {
						aliases.put(served, login);
					}
				}
			}
		}
		return new Routes(Map.copyOf(aliases), List.copyOf(servedByFilter));
	}

	private static List<EndpointTemplate> templates(RequestMappingInfo info) {
		Set<RequestMethod> declared = info.getMethodsCondition().getMethods();
		List<String> methods = declared.isEmpty() ? STANDARD_METHODS
				: declared.stream().map(RequestMethod::name).toList();
		List<EndpointTemplate> templates = new ArrayList<>();
		for (String pattern : info.getPatternValues()) {
			for (String method : methods) {
				try {
					templates.add(EndpointTemplate.fromPattern(method, pattern));
				}
				catch (IllegalArgumentException ex) {
					// Not a template: the endpoint resolver never charges it either.
				}
			}
		}
		return templates;
	}

	private record Routes(Map<EndpointTemplate, EndpointTemplate> aliases, List<FilterServedLogin> servedByFilter) {

		EndpointTemplate servedByFilter(RateLimitRequest request) {
			if (this.servedByFilter.isEmpty()) {
				return EndpointTemplate.UNKNOWN;
			}
			HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
			if (servletRequest == null) {
				return EndpointTemplate.UNKNOWN;
			}
			PathContainer path = null;
			for (FilterServedLogin login : this.servedByFilter) {
				if (login.template().method().equals(servletRequest.getMethod())) {
					if (path == null) {
						path = ServletRequestPathUtils.parse(servletRequest).pathWithinApplication();
					}
					if (login.pattern().matches(path)) {
						return login.template();
					}
				}
			}
			return EndpointTemplate.UNKNOWN;
		}

	}

	private record FilterServedLogin(EndpointTemplate template, PathPattern pattern) {
	}

}
