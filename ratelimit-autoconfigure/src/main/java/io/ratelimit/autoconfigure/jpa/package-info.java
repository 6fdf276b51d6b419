/**
 * Policies and API keys read from the database with Spring Data JPA.
 */
@NullMarked
package io.ratelimit.autoconfigure.jpa;

import org.jspecify.annotations.NullMarked;
