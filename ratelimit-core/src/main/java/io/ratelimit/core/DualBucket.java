package io.ratelimit.core;

import java.util.List;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.Consumption;

/**
 * Charges a request of a sensitive endpoint to two buckets that must both admit it: the
 * client's (volumetric) and the submitted identifier's (targeted guessing). Both are tried;
 * when only one admits, its tokens are given back, so a refused request costs nothing and
 * each bucket's wait is known for {@code Retry-After}.
 */
final class DualBucket {

	/** The suffix naming the identifier's bucket in the response fields. */
	static final String IDENTIFIER_SUFFIX = " identifier";

	private final BucketStore buckets;

	DualBucket(BucketStore buckets) {
		this.buckets = buckets;
	}

	List<Quota> consume(BucketKey client, BucketKey identifier, String name, BucketLimits limits, int weight) {
		Consumption byClient = this.buckets.tryConsume(client, limits, weight);
		Consumption byIdentifier = this.buckets.tryConsume(identifier, limits, weight);
		if (byClient.consumed() && !byIdentifier.consumed()) {
			byClient = giveBack(client, limits, weight, byClient);
		}
		else if (byIdentifier.consumed() && !byClient.consumed()) {
			byIdentifier = giveBack(identifier, limits, weight, byIdentifier);
		}
		return List.of(Quota.of(name, limits, byClient), Quota.of(name + IDENTIFIER_SUFFIX, limits, byIdentifier));
	}

	private Consumption giveBack(BucketKey key, BucketLimits limits, int weight, Consumption consumption) {
		this.buckets.refund(key, limits, weight);
		long units = Math.min(limits.capacityUnits(),
				consumption.remainingUnits() + (long) weight * BucketLimits.UNITS_PER_TOKEN);
		return new Consumption(true, units, 0);
	}

}
