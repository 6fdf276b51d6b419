package io.ratelimit.core.bucket;

/**
 * What a {@link LeasedBucketStore} does with a burst: a request that its key's lease and
 * credit cannot pay for while the shared bucket, as last seen, can, or while the call
 * charging the key's credit is still on its way.
 */
public enum BurstHandling {

	/**
	 * The request waits for the key's call on its way (a refill, or the call charging its
	 * credit), as long as the store's longest wait at most, and is decided by what it brings:
	 * no request is refused what the shared bucket holds, and such a request takes a round
	 * trip to the shared store.
	 */
	WAIT,

	/**
	 * The request is refused at once, from what this replica holds, and the key's call on
	 * its way brings what its next requests decide from. A request still waits for the
	 * shared store where its key's credit cannot cover it at all (a small, slow bucket, a
	 * request heavier than the credit, a bucket last seen holding less than the credit), after
	 * a failed call, and when the background is saturated; and a burst larger than a key's
	 * credit on a replica that has no lease of it yet gets 429s an exact limiter would not
	 * give.
	 */
	REFUSE

}
