/**
 * Checks that catch misconfiguration of the limiter and say so once, in a WARN log line
 * that starts with a stable code such as {@code [RATELIMIT-W001]}: see
 * {@link io.ratelimit.autoconfigure.diagnostics.Diagnostic}.
 */
@NullMarked
package io.ratelimit.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
