/**
 * The concurrency stage: permits for requests in progress, taken before the handler runs and
 * given back when the response completes. A limit counting
 * {@link io.ratelimit.core.policy.LimitUnit#IN_FLIGHT} holds at most its count of permits per
 * caller key; {@link io.ratelimit.core.concurrency.PermitStore} holds them, in memory or
 * shared.
 */
@NullMarked
package io.ratelimit.core.concurrency;

import org.jspecify.annotations.NullMarked;
