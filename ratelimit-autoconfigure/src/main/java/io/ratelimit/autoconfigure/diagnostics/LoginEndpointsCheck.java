package io.ratelimit.autoconfigure.diagnostics;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.autoconfigure.web.LoginEndpointResolver;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.http.server.RequestPath;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AbstractAuthenticationProcessingFilter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Warns once at startup ({@link Diagnostic#W011}) for each configured login endpoint that
 * nothing in the application serves: no Spring MVC handler, and no authentication filter
 * of a Spring Security filter chain (form login processes its URL in a filter). A typo in
 * {@code ratelimit.login.endpoints}, or a login moved elsewhere, would otherwise leave the
 * account buckets silently off. Other filters that serve a login cannot be seen and are
 * trusted to be what the configuration says. With the limiter placed after Spring
 * Security's chain, a login that the chain processes never reaches the limiter at all (the
 * authentication filter answers without passing the request on), which is warned about
 * too.
 */
public class LoginEndpointsCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LoginEndpointsCheck.class);

	private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
			"org.springframework.security.web.authentication.AbstractAuthenticationProcessingFilter",
			LoginEndpointsCheck.class.getClassLoader());

	private final RateLimiter limiter;

	private final ListableBeanFactory beans;

	private final boolean afterSecurity;

	/**
	 * Creates a check.
	 * @param limiter the limiter whose login endpoints are checked
	 * @param beans where Spring Security's filter chains are looked up
	 * @param afterSecurity whether the limiter's filter runs after Spring Security's chain
	 */
	public LoginEndpointsCheck(RateLimiter limiter, ListableBeanFactory beans, boolean afterSecurity) {
		this.limiter = Objects.requireNonNull(limiter, "limiter must not be null");
		this.beans = Objects.requireNonNull(beans, "beans must not be null");
		this.afterSecurity = afterSecurity;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (!(this.limiter.endpoints() instanceof LoginEndpointResolver logins)) {
			return;
		}
		for (EndpointTemplate login : logins.withoutHandler()) {
			if (SECURITY_PRESENT && SecurityLogins.processes(this.beans, login)) {
				if (this.afterSecurity) {
					logger.warn(Diagnostic.W011.message("ratelimit.login.endpoints names '" + login + "', which a "
							+ "Spring Security authentication filter processes, but the limiter runs after Spring "
							+ "Security's filter chain (ratelimit.filter.position=after-security), so those logins "
							+ "never reach it and have no bucket at all. Place the limiter before Spring Security "
							+ "(ratelimit.filter.position=before-security, the default)."));
				}
				continue;
			}
			logger.warn(Diagnostic.W011.message("ratelimit.login.endpoints names '" + login + "', which no handler "
					+ "of the application serves and no Spring Security authentication filter processes, so its "
					+ "account buckets protect nothing. Name the method and path the login is served at (the "
					+ "'ratelimit' Actuator endpoint explains which template a path is), or remove the entry."));
		}
	}

	/**
	 * Asks Spring Security's authentication filters whether they process a login, with a
	 * request that has nothing but its method and path.
	 */
	private static final class SecurityLogins {

		private static final Method REQUIRES_AUTHENTICATION = ReflectionUtils.findMethod(
				AbstractAuthenticationProcessingFilter.class, "requiresAuthentication", HttpServletRequest.class,
				jakarta.servlet.http.HttpServletResponse.class);

		static boolean processes(ListableBeanFactory beans, EndpointTemplate login) {
			if (REQUIRES_AUTHENTICATION == null) {
				return true; // Cannot ask: give the configuration the benefit of the doubt.
			}
			ReflectionUtils.makeAccessible(REQUIRES_AUTHENTICATION);
			HttpServletRequest request = probe(Objects.requireNonNull(login.method()),
					Objects.requireNonNull(login.path()));
			for (SecurityFilterChain chain : beans.getBeansOfType(SecurityFilterChain.class).values()) {
				try {
					if (!chain.matches(request)) {
						continue;
					}
					for (Object filter : chain.getFilters()) {
						if (filter instanceof AbstractAuthenticationProcessingFilter authentication
								&& Boolean.TRUE.equals(REQUIRES_AUTHENTICATION.invoke(authentication, request, null))) {
							return true;
						}
					}
				}
				catch (ReflectiveOperationException | RuntimeException ex) {
					return true; // A matcher that needs more than a method and a path: cannot tell.
				}
			}
			return false;
		}

		/**
		 * A request of the given method and path, parsed the way Spring's path matchers read
		 * it, with no headers, parameters or body.
		 */
		private static HttpServletRequest probe(String method, String path) {
			Map<String, Object> attributes = new HashMap<>();
			attributes.put(ServletRequestPathUtils.PATH_ATTRIBUTE, RequestPath.parse(path, ""));
			return (HttpServletRequest) Proxy.newProxyInstance(LoginEndpointsCheck.class.getClassLoader(),
					new Class<?>[] { HttpServletRequest.class }, (proxy, invoked, args) -> switch (invoked.getName()) {
						case "getMethod" -> method;
						case "getRequestURI", "getServletPath" -> path;
						case "getContextPath" -> "";
						case "getDispatcherType" -> DispatcherType.REQUEST;
						case "getAttribute" -> attributes.get((String) args[0]);
						case "setAttribute" -> attributes.put((String) args[0], args[1]);
						case "removeAttribute" -> attributes.remove((String) args[0]);
						case "getAttributeNames" -> Collections.enumeration(attributes.keySet());
						case "getHeaders", "getHeaderNames", "getParameterNames" -> Collections.emptyEnumeration();
						case "getParameterMap" -> Map.of();
						case "getRequestURL" -> new StringBuffer(path);
						case "hashCode" -> System.identityHashCode(proxy);
						case "equals" -> proxy == args[0];
						case "toString" -> method + " " + path;
						default -> defaultValue(invoked.getReturnType());
					});
		}

		private static Object defaultValue(Class<?> type) {
			if (type == boolean.class) {
				return false;
			}
			if (type == int.class || type == long.class) {
				return (type == int.class) ? (Object) 0 : (Object) 0L;
			}
			return null;
		}

	}

}
