/**
 * Micrometer metrics of the rate limiter.
 */
@NullMarked
package io.ratelimit.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
