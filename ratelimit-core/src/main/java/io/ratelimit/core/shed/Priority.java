package io.ratelimit.core.shed;

/**
 * The priority class of an endpoint under overload: when the adaptive concurrency limit is
 * reached, {@link #SHEDDABLE} requests are refused first, then {@link #DEFAULT} ones;
 * {@link #CRITICAL} requests alone may use the share of the limit reserved for them.
 */
public enum Priority {

	/** Requests that must get through under overload, such as payments: may use all of the limit. */
	CRITICAL,

	/** Every endpoint that is not classed otherwise: may use the limit less the critical reserve. */
	DEFAULT,

	/**
	 * Requests that can wait or be retried, such as reports or exports, and every request no
	 * endpoint serves: may use the limit less both reserves.
	 */
	SHEDDABLE

}
