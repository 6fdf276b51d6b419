/**
 * The rate-limiting pipeline as plain Java: {@link io.ratelimit.core.RateLimiter} turns a
 * {@link io.ratelimit.core.RateLimitRequest} into a {@link io.ratelimit.core.Decision} by
 * resolving the endpoint, the identity and the policies, then consuming tokens from their
 * buckets, all or nothing.
 */
@NullMarked
package io.ratelimit.core;

import org.jspecify.annotations.NullMarked;
