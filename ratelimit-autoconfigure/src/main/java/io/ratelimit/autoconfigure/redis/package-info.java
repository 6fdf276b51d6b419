/**
 * Buckets of global policies in Redis: Bucket4j's Lettuce proxy manager on a Lettuce
 * client of the limiter's own, built from the application's {@code spring.data.redis.*}
 * settings, behind a circuit breaker that applies {@code ratelimit.redis.failure-mode}
 * while Redis cannot be used.
 */
@NullMarked
package io.ratelimit.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
