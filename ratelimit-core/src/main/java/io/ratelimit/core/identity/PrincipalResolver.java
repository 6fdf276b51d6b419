package io.ratelimit.core.identity;

import io.ratelimit.core.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * Tells which principal the application has already authenticated for a request. The
 * Spring integration reads the security context when the limiter runs after Spring
 * Security; the principal then outranks every other identity tier.
 */
@FunctionalInterface
public interface PrincipalResolver {

	/**
	 * Returns the authenticated principal of a request.
	 * @param request the request
	 * @return the principal, or {@code null} if the request is not authenticated
	 */
	@Nullable AuthenticatedPrincipal resolve(RateLimitRequest request);

}
