/**
 * Stage three of the pipeline: which limits apply. Policy rows are validated into an
 * immutable {@link io.ratelimit.core.policy.PolicySnapshot} that resolves the fixed
 * precedence chain with map lookups, and is swapped atomically on reload: once for the
 * endpoint's own limit, and once per name for the layered limits (per endpoint, per
 * {@linkplain io.ratelimit.core.policy.EndpointGroups group of endpoints}, across the API).
 */
@NullMarked
package io.ratelimit.core.policy;

import org.jspecify.annotations.NullMarked;
