package io.ratelimit.autoconfigure.security;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;

/**
 * Applies the application's {@link HttpFirewall} before asking which handler serves a
 * request, for a limiter placed before Spring Security: a request the firewall rejects
 * never reaches a handler (Spring Security answers 400), so it is charged to
 * {@link EndpointTemplate#UNKNOWN}.
 */
public class FirewalledEndpointResolver implements EndpointResolver {

	private final HttpFirewall firewall;

	private final EndpointResolver delegate;

	public FirewalledEndpointResolver(HttpFirewall firewall, EndpointResolver delegate) {
		this.firewall = firewall;
		this.delegate = delegate;
	}

	@Override
	public EndpointTemplate resolve(RateLimitRequest request) {
		HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
		if (servletRequest != null) {
			try {
				this.firewall.getFirewalledRequest(servletRequest);
			}
			catch (RequestRejectedException ex) {
				return EndpointTemplate.UNKNOWN;
			}
		}
		return this.delegate.resolve(request);
	}

}
