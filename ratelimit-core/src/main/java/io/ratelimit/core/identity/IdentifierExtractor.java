package io.ratelimit.core.identity;

import io.ratelimit.core.RateLimitRequest;

/**
 * Reads the account identifier from a request to a sensitive endpoint, e.g. the
 * {@code username} of a JSON login body. Called only for the endpoints it is configured
 * for. Implementations must never fail open: anything they cannot read is
 * {@link SubmittedIdentifier#UNREADABLE}, and the application must still receive the
 * whole body.
 */
@FunctionalInterface
public interface IdentifierExtractor {

	/**
	 * Reads the identifier.
	 * @param request the request
	 * @return the identifier, or {@link SubmittedIdentifier#UNREADABLE}
	 */
	SubmittedIdentifier extract(RateLimitRequest request);

}
