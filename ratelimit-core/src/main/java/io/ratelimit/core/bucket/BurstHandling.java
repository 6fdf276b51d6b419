package io.ratelimit.core.bucket;

/**
 * What a {@link LeasedBucketStore} does with a burst: a request that its key's lease and
 * credit cannot pay for while the shared bucket, as last seen, can, or while the call
 * charging the key's credit is still on its way.
 */
public enum BurstHandling {

	/**
	 * The request waits once for the key's call on its way (a refill, or the call charging
	 * its credit) and is decided by what it brings: no request is refused what the shared
	 * bucket holds, and such a request takes a round trip to the shared store.
	 */
	WAIT,

	/**
	 * The request is refused at once, from what this replica holds: no decision waits for the
	 * shared store beyond a cold key's first request on a bucket without credit, and a burst
	 * larger than a key's credit on a replica that has no lease of it yet gets 429s that an
	 * exact limiter would not give.
	 */
	REFUSE

}
