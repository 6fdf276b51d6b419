package io.ratelimit.core.bucket;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A shared {@link BucketStore} that can hand a share of a bucket's tokens to one replica and
 * take back what it did not use: what {@link LeasedBucketStore} decides from.
 * <p>
 * {@link LeasedBucketStore} makes its background calls through the {@code ...Async}
 * methods. By default they make the call on the calling thread and return it done; a store
 * that can have many calls in flight at once (several keys' calls sent together in one
 * round trip) overrides them and returns before the store answers.
 */
public interface LeasableBucketStore extends BucketStore {

	/**
	 * Takes as many units as the bucket holds, up to a maximum; never waits for tokens.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param maximumUnits the most units to take, positive
	 * @return the units taken (possibly none) and what the bucket holds afterwards
	 */
	Grant lease(BucketKey key, BucketLimits limits, long maximumUnits);

	/**
	 * Returns units taken by {@link #lease} and not used; a full bucket keeps no more than
	 * its capacity.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to give back, positive
	 */
	void giveBack(BucketKey key, BucketLimits limits, long units);

	/**
	 * Charges units whatever the bucket holds, leaving it in debt if it holds too few (its
	 * refill pays the debt off before it admits again): for units a replica admitted before
	 * the bucket was asked.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to charge, positive
	 */
	void charge(BucketKey key, BucketLimits limits, long units);

	/**
	 * Starts {@link #lease}; the stage fails with what the call throws.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param maximumUnits the most units to take, positive
	 * @return the grant, when the store answers
	 */
	default CompletionStage<Grant> leaseAsync(BucketKey key, BucketLimits limits, long maximumUnits) {
		return now(() -> lease(key, limits, maximumUnits));
	}

	/**
	 * Starts {@link #giveBack}; the stage fails with what the call throws.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to give back, positive
	 * @return done when the store answers
	 */
	default CompletionStage<Void> giveBackAsync(BucketKey key, BucketLimits limits, long units) {
		return now(() -> {
			giveBack(key, limits, units);
			return null;
		});
	}

	/**
	 * Starts {@link #charge}; the stage fails with what the call throws.
	 * @param key the bucket's key
	 * @param limits the bucket's shape
	 * @param units the units to charge, positive
	 * @return done when the store answers
	 */
	default CompletionStage<Void> chargeAsync(BucketKey key, BucketLimits limits, long units) {
		return now(() -> {
			charge(key, limits, units);
			return null;
		});
	}

	private static <T> CompletionStage<T> now(Supplier<T> call) {
		try {
			return CompletableFuture.completedFuture(call.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The outcome of {@link #lease}.
	 *
	 * @param units the units taken
	 * @param remainingUnits the units left in the shared bucket
	 */
	record Grant(long units, long remainingUnits) {
	}

}
