package io.ratelimit.autoconfigure.security;

import java.util.Objects;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Applies the application's {@link HttpFirewall} before asking which handler serves a
 * request, for a limiter placed before Spring Security: a request the firewall rejects
 * never reaches a handler (Spring Security answers 400), so it is charged to
 * {@link EndpointTemplate#UNKNOWN}.
 * <p>
 * An application's own firewall is asked about every request, since its verdict may
 * depend on anything in it (a host, a header). Spring Security's default firewall, a
 * {@link StrictHttpFirewall} as created, looks at the method, the request URI and what the
 * container derives from the URI (context path, servlet path, path info), and accepts any
 * host; so for it the resolver remembers the (method, URI) pairs it admitted, in a bounded
 * cache, and asks the firewall only about the others. Over Spring MVC's handler mappings
 * ({@link #withDefaultFirewall(ApplicationContext)}), the templates that the
 * {@link MvcEndpointResolver} remembers by method and URI are consulted first: it resolves
 * only the requests this resolver admitted, so a remembered template is an admitted request,
 * answered with one lookup.
 */
public final class FirewalledEndpointResolver implements EndpointResolver {

	/** The most admitted requests remembered. */
	private static final int CACHE_SIZE = 10_000;

	/** Longer URIs are asked about every time, so the cache stays small whatever clients send. */
	private static final int MAX_CACHED_URI_LENGTH = 256;

	private final HttpFirewall firewall;

	private final EndpointResolver delegate;

	private final @Nullable Cache<Admitted, Boolean> admitted;

	// Set only when the delegate is this resolver's own: nothing else fills its memory.
	private final @Nullable MvcEndpointResolver handlers;

	private FirewalledEndpointResolver(HttpFirewall firewall, EndpointResolver delegate, boolean decidedByUri,
			@Nullable MvcEndpointResolver handlers) {
		this.firewall = Objects.requireNonNull(firewall, "firewall must not be null");
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.admitted = decidedByUri ? Caffeine.newBuilder().maximumSize(CACHE_SIZE).executor(Runnable::run).build()
				: null;
		this.handlers = handlers;
	}

	/**
	 * Creates a resolver that applies the application's own firewall to every request.
	 * @param firewall the application's firewall bean
	 * @param delegate resolves the requests the firewall admits
	 * @return the resolver
	 */
	public static FirewalledEndpointResolver of(HttpFirewall firewall, EndpointResolver delegate) {
		return new FirewalledEndpointResolver(firewall, delegate, false, null);
	}

	/**
	 * Creates a resolver that applies Spring Security's default firewall, the one its
	 * filter chain uses when the application defines none.
	 * @param delegate resolves the requests the firewall admits
	 * @return the resolver
	 */
	public static FirewalledEndpointResolver withDefaultFirewall(EndpointResolver delegate) {
		return new FirewalledEndpointResolver(new StrictHttpFirewall(), delegate, true, null);
	}

	/**
	 * Creates a resolver that applies Spring Security's default firewall in front of Spring
	 * MVC's handler mappings, through an {@link MvcEndpointResolver} of its own.
	 * @param context the application context whose handler mappings serve requests
	 * @return the resolver
	 */
	public static FirewalledEndpointResolver withDefaultFirewall(ApplicationContext context) {
		return withDefaultFirewall(context, false);
	}

	/**
	 * Creates a resolver that applies Spring Security's default firewall in front of Spring
	 * MVC's handler mappings, through an {@link MvcEndpointResolver} of its own.
	 * @param context the application context whose handler mappings serve requests
	 * @param findsServedUnknown whether that resolver finds out, at a cost, which requests
	 * without a template nothing serves (see {@link MvcEndpointResolver})
	 * @return the resolver
	 */
	public static FirewalledEndpointResolver withDefaultFirewall(ApplicationContext context,
			boolean findsServedUnknown) {
		MvcEndpointResolver handlers = new MvcEndpointResolver(context, findsServedUnknown);
		return new FirewalledEndpointResolver(new StrictHttpFirewall(), handlers, true, handlers);
	}

	@Override
	public EndpointTemplate resolve(RateLimitRequest request) {
		HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
		if (servletRequest == null) {
			return this.delegate.resolve(request);
		}
		EndpointTemplate remembered = (this.handlers != null) ? this.handlers.remembered(servletRequest) : null;
		if (remembered != null) {
			return remembered;
		}
		// What the firewall rejects is no request to parse and match.
		return admits(servletRequest) ? this.delegate.resolve(request) : EndpointTemplate.UNKNOWN;
	}

	private boolean admits(HttpServletRequest request) {
		Admitted key = (this.admitted != null) ? Admitted.of(request) : null;
		if (key != null && this.admitted.getIfPresent(key) != null) {
			return true;
		}
		try {
			this.firewall.getFirewalledRequest(request);
		}
		catch (RequestRejectedException ex) {
			return false;
		}
		if (key != null) {
			this.admitted.put(key, Boolean.TRUE);
		}
		return true;
	}

	private record Admitted(String method, String requestUri) {

		static @Nullable Admitted of(HttpServletRequest request) {
			String uri = request.getRequestURI();
			return (uri != null && uri.length() <= MAX_CACHED_URI_LENGTH) ? new Admitted(request.getMethod(), uri) : null;
		}

	}

}
