/**
 * The load-shedding stage: protects the service, not a caller. Each endpoint has a
 * {@link io.ratelimit.core.shed.Priority priority class}; an adaptive concurrency limit,
 * learned from the latency of the requests the application serves, caps how many requests
 * are in flight, and the lowest class is refused first when the limit is reached. It runs
 * right after endpoint resolution, before any identity work, so that shedding stays cheap
 * under overload.
 */
@NullMarked
package io.ratelimit.core.shed;

import org.jspecify.annotations.NullMarked;
