/**
 * Stage one of the pipeline: which endpoint a request is. Requests map to endpoint
 * templates such as {@code GET /api/users/*}; anything the application does not serve is
 * {@link io.ratelimit.core.endpoint.EndpointTemplate#UNKNOWN}.
 */
@NullMarked
package io.ratelimit.core.endpoint;

import org.jspecify.annotations.NullMarked;
