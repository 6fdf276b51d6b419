/**
 * The limiter's JPA entities. The package is added to the application's persistence unit;
 * it holds entities only, so no repository scanning ever picks anything up here.
 */
@NullMarked
package io.ratelimit.autoconfigure.jpa.model;

import org.jspecify.annotations.NullMarked;
