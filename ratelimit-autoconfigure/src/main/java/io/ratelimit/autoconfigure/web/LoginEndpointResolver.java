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
 * several, serves the same body under every method it accepts: a {@code PUT} (or a
 * {@code GET} with a body, or an invented method) to it is the login as much as the
 * configured {@code POST}, so it is charged as the login, with the login's policy and the
 * account's bucket. Only where another handler maps the same method and path
 * unconditionally, and so always serves it before a handler mapped without a method, is
 * the template left to that handler; where conditions decide, it is charged as the login,
 * which errs on the strict side.</li>
 * <li>A login that no handler serves but a filter does (Spring Security's form login
 * processes {@code POST /login} in its filter chain) would be {@code UNKNOWN}: a request of
 * its method whose path matches it, the way Spring's path patterns match (decoded, path
 * parameters ignored), is charged as the login instead.</li>
 * </ul>
 * The application's routes are read once, on the first request, when every handler
 * mapping is complete; routes registered later are not considered.
 */
public final class LoginEndpointResolver implements EndpointResolver {

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
			EndpointTemplate login = routes.unknownToHandler(request);
			// No login: the delegate's own answer, which may say that something serves it.
			return (login != null) ? login : endpoint;
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
		List<Route> all = new ArrayList<>();
		for (RequestMappingInfoHandlerMapping mapping : BeanFactoryUtils
			.beansOfTypeIncludingAncestors(this.context, RequestMappingInfoHandlerMapping.class, true, false)
			.values()) {
			mapping.getHandlerMethods()
				.forEach((info, handler) -> all.add(new Route(info, handler, MvcEndpointTemplates.templatesOf(info))));
		}
		Map<EndpointTemplate, EndpointTemplate> aliases = new HashMap<>();
		List<PathLogin> anyMethod = new ArrayList<>();
		List<PathLogin> servedByFilter = new ArrayList<>();
		for (EndpointTemplate login : this.logins) {
			List<Route> routes = all.stream().filter((route) -> route.templates().contains(login)).toList();
			if (routes.isEmpty()) {
				servedByFilter.add(new PathLogin(login, PathPatternParser.defaultInstance.parse(
						Objects.requireNonNull(login.path()))));
			}
			for (Route route : all) {
				if (routes.stream().noneMatch((served) -> served.handler().equals(route.handler()))) {
					continue;
				}
				for (EndpointTemplate served : route.templates()) {
					if (!served.equals(login) && !this.logins.contains(served)
							&& !alwaysServedByAnother(served, route, all)) {
						aliases.put(served, login);
					}
				}
				if (route.info().getMethodsCondition().getMethods().isEmpty()) {
					for (String pattern : route.info().getPatternValues()) {
						anyMethod.add(new PathLogin(login, PathPatternParser.defaultInstance.parse(pattern)));
					}
				}
			}
		}
		return new Routes(Map.copyOf(aliases), List.copyOf(anyMethod), List.copyOf(servedByFilter));
	}

	/**
	 * Returns whether Spring MVC always picks another handler for the template: one that
	 * names its method, with no further condition, beats a login mapped without a method
	 * and without conditions of its own.
	 */
	private static boolean alwaysServedByAnother(EndpointTemplate template, Route login, List<Route> all) {
		if (!unconditional(login.info())) {
			return false;
		}
		return all.stream()
			.anyMatch((other) -> !other.handler().equals(login.handler()) && other.templates().contains(template)
					&& !other.info().getMethodsCondition().getMethods().isEmpty() && unconditional(other.info()));
	}

	private static boolean unconditional(RequestMappingInfo info) {
		return info.getParamsCondition().isEmpty() && info.getHeadersCondition().isEmpty()
				&& info.getConsumesCondition().isEmpty() && info.getProducesCondition().isEmpty()
				&& info.getVersionCondition().getVersion() == null && info.getCustomCondition() == null;
	}

	private record Route(RequestMappingInfo info, HandlerMethod handler, List<EndpointTemplate> templates) {
	}

	/**
	 * @param aliases the templates a login handler serves, to the login's template
	 * @param anyMethod the paths of login handlers mapped without a method, which serve
	 * methods the endpoint resolver does not name either
	 * @param servedByFilter the logins no handler serves, by path
	 */
	private record Routes(Map<EndpointTemplate, EndpointTemplate> aliases, List<PathLogin> anyMethod,
			List<PathLogin> servedByFilter) {

		/**
		 * Returns the login an unknown request is, if any: a login served by a filter, or a
		 * non-standard method sent to a login handler mapped without a method.
		 */
		@Nullable EndpointTemplate unknownToHandler(RateLimitRequest request) {
			if (this.servedByFilter.isEmpty() && this.anyMethod.isEmpty()) {
				return null;
			}
			HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
			if (servletRequest == null) {
				return null;
			}
			String method = servletRequest.getMethod();
			PathContainer path = null;
			for (PathLogin login : this.servedByFilter) {
				if (login.template().method().equals(method)) {
					path = (path != null) ? path : pathOf(servletRequest);
					if (login.pattern().matches(path)) {
						return login.template();
					}
				}
			}
			if (!MvcEndpointTemplates.STANDARD_METHODS.contains(method)) {
				for (PathLogin login : this.anyMethod) {
					path = (path != null) ? path : pathOf(servletRequest);
					if (login.pattern().matches(path)) {
						return login.template();
					}
				}
			}
			return null;
		}

		private static PathContainer pathOf(HttpServletRequest request) {
			return ServletRequestPathUtils.parse(request).pathWithinApplication();
		}

	}

	private record PathLogin(EndpointTemplate template, PathPattern pattern) {
	}

}
