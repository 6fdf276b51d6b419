/**
 * Spring Boot auto-configuration of the rate limiter: properties under {@code ratelimit.*}.
 */
@NullMarked
package io.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
