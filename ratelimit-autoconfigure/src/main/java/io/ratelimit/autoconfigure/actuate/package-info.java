/**
 * The Actuator endpoint {@code ratelimit}: the policies in force, why a request gets the
 * policy it gets, and reloading them on demand.
 */
@NullMarked
package io.ratelimit.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
