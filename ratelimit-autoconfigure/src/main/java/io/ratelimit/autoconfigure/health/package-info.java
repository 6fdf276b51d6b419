/**
 * The Actuator health contributor {@code ratelimit}: whether the policies in force come
 * from the policy table, how old they are, and whether reloading them fails.
 */
@NullMarked
package io.ratelimit.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
