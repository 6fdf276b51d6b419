package io.ratelimit.core.shed;

/**
 * How a request that held a {@link Permit} ended, and so what its latency tells the adaptive
 * limit.
 */
public enum Completion {

	/**
	 * The application answered (2xx): its latency is a sample of the service's load.
	 */
	SUCCESS,

	/**
	 * The service did not answer in time (an asynchronous request timed out): a sign of
	 * overload, which lowers the limit.
	 */
	DROPPED,

	/**
	 * The latency says nothing about the service's load: the client went away, the
	 * application failed or refused the request (4xx, 5xx), or it never reached the
	 * application. Cheap refusals would otherwise pass for an unloaded service and pull the
	 * measured no-load latency down.
	 */
	IGNORED

}
