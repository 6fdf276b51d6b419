package io.ratelimit.autoconfigure.diagnostics;

import java.util.Set;
import java.util.TreeSet;

import jakarta.servlet.Filter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.security.web.FilterChainProxy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.filter.UrlHandlerFilter;

/**
 * Warns once at startup ({@link Diagnostic#W013}) when a {@link UrlHandlerFilter} sits in
 * one of Spring Security's filter chains. The limiter applies the application's
 * {@code UrlHandlerFilter}s itself, so that a request with a trailing slash is charged to
 * the handler that serves it once the slash is trimmed; it finds them among the filter
 * beans, and one added to a security filter chain is no filter bean: such requests are
 * charged to {@code UNKNOWN}, and refused by {@code ratelimit.unknown-endpoint=reject},
 * although a handler serves them.
 */
public class SecuredUrlHandlerFilterCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(SecuredUrlHandlerFilterCheck.class);

	private final ListableBeanFactory beans;

	/**
	 * Creates a check.
	 * @param beans where Spring Security's filter chain proxies are found
	 */
	public SecuredUrlHandlerFilterCheck(ListableBeanFactory beans) {
		this.beans = beans;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<String> secured = new TreeSet<>();
		BeanFactoryUtils.beansOfTypeIncludingAncestors(this.beans, FilterChainProxy.class, false, false)
			.forEach((name, proxy) -> {
				for (SecurityFilterChain chain : proxy.getFilterChains()) {
					for (Filter filter : chain.getFilters()) {
						if (filter instanceof UrlHandlerFilter) {
							secured.add(name);
						}
					}
				}
			});
		if (!secured.isEmpty()) {
			logger.warn(Diagnostic.W013.message("A UrlHandlerFilter sits in Spring Security's filter chain "
					+ secured + ", where the rate limiter cannot apply it: requests with a trailing slash that "
					+ "it trims are charged to the UNKNOWN policy (and refused with ratelimit.unknown-endpoint="
					+ "reject) although a handler serves them. Declare the UrlHandlerFilter as a filter bean "
					+ "instead of adding it to the security filter chain."));
		}
	}

}
