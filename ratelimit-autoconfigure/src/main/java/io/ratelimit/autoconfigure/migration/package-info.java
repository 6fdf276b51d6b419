/**
 * The limiter's own schema migration, ordered before the application's Flyway and JPA.
 */
@NullMarked
package io.ratelimit.autoconfigure.migration;

import org.jspecify.annotations.NullMarked;
