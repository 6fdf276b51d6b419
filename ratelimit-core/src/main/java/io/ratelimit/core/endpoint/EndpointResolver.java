package io.ratelimit.core.endpoint;

import io.ratelimit.core.RateLimitRequest;

/**
 * Decides which endpoint a request is. Implementations must charge the template of the
 * handler that will actually serve the request, and {@link EndpointTemplate#UNKNOWN} when
 * no handler will: never a template built from the raw request path.
 */
@FunctionalInterface
public interface EndpointResolver {

	/**
	 * Resolves the endpoint of a request.
	 * @param request the request
	 * @return the template, {@link EndpointTemplate#UNKNOWN} if the application does not
	 * serve the request; never {@code null}
	 */
	EndpointTemplate resolve(RateLimitRequest request);

}
