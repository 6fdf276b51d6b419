/**
 * The servlet side: the filter, the request view, endpoints from Spring MVC, problem responses.
 */
@NullMarked
package io.ratelimit.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
