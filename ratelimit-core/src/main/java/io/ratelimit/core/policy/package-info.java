/**
 * Stage three of the pipeline: which limit applies. Policy rows are validated into an
 * immutable {@link io.ratelimit.core.policy.PolicySnapshot} that resolves the fixed
 * precedence chain with map lookups, and is swapped atomically on reload.
 */
@NullMarked
package io.ratelimit.core.policy;

import org.jspecify.annotations.NullMarked;
