package io.ratelimit.core.bucket;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.github.bucket4j.BucketListener;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.MathType;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.local.LockFreeBucket;
import io.ratelimit.core.TimeSource;

/**
 * The per-process {@link BucketStore}: Bucket4j buckets in a bounded Caffeine cache.
 * <p>
 * Two bounds keep memory flat whatever keys clients invent. A maximum number of entries,
 * enforced with Caffeine's frequency-based admission, so a flood of one-off keys evicts
 * mostly itself and a frequently used bucket keeps its state (a client cannot reset its own
 * bucket by churning others). And idle expiry: a bucket is dropped once it has been idle for
 * as long as it takes to refill completely, when forgetting it loses nothing.
 * <p>
 * Each replica has its own buckets: k replicas admit up to k times a limit.
 */
public final class LocalBucketStore implements BucketStore {

	private final Cache<BucketKey, LocalBucket> buckets;

	private final TimeMeter timeMeter;

	private LocalBucketStore(long maximumEntries, TimeSource time) {
		this.timeMeter = (time == TimeSource.system()) ? TimeMeter.SYSTEM_NANOTIME : new TimeSourceMeter(time);
		this.buckets = Caffeine.newBuilder()
			.maximumSize(maximumEntries)
			.expireAfter(new UntilFull())
			.ticker(time::nanoTime)
			// Maintenance on the calling thread keeps the bound exact instead of eventually applied.
			.executor(Runnable::run)
			.recordStats()
			.build();
	}

	/**
	 * Creates a store on the system clock.
	 * @param maximumEntries the most buckets held at once
	 * @return the store
	 */
	public static LocalBucketStore create(long maximumEntries) {
		return create(maximumEntries, TimeSource.system());
	}

	/**
	 * Creates a store.
	 * @param maximumEntries the most buckets held at once
	 * @param time the clock buckets refill by
	 * @return the store
	 */
	public static LocalBucketStore create(long maximumEntries, TimeSource time) {
		if (maximumEntries < 1) {
			throw new IllegalArgumentException("The maximum number of buckets must be positive, but was " + maximumEntries);
		}
		return new LocalBucketStore(maximumEntries, Objects.requireNonNull(time, "time must not be null"));
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens < 1) {
			throw new IllegalArgumentException("At least one token must be consumed, but was " + tokens);
		}
		LocalBucket bucket = this.buckets.getIfPresent(key);
		if (bucket == null) {
			bucket = this.buckets.get(key, (absent) -> new LocalBucket(limits, this.timeMeter));
		}
		return bucket.tryConsume(limits, Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN));
	}

	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		LocalBucket bucket = this.buckets.getIfPresent(key);
		if (bucket != null) {
			// A bucket gone meanwhile was full again; there is nothing to give back.
			bucket.refund(Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN));
		}
	}

	@Override
	public BucketStoreStats stats() {
		this.buckets.cleanUp();
		return new BucketStoreStats(this.buckets.estimatedSize(), this.buckets.stats().evictionCount());
	}

	/**
	 * A Bucket4j bucket and the limits it currently has.
	 */
	private static final class LocalBucket {

		private final LockFreeBucket bucket;

		private volatile BucketLimits limits;

		LocalBucket(BucketLimits limits, TimeMeter timeMeter) {
			this.limits = limits;
			this.bucket = new LockFreeBucket(limits.configuration(), MathType.INTEGER_64_BITS, timeMeter,
					BucketListener.NOPE);
		}

		Consumption tryConsume(BucketLimits wanted, long units) {
			if (!wanted.equals(this.limits)) {
				// The policy changed: keep the tokens, capped at the new capacity.
				this.bucket.replaceConfiguration(wanted.configuration(), TokensInheritanceStrategy.AS_IS);
				this.limits = wanted;
			}
			ConsumptionProbe probe = this.bucket.tryConsumeAndReturnRemaining(units);
			return new Consumption(probe.isConsumed(), probe.getRemainingTokens(),
					probe.isConsumed() ? 0 : probe.getNanosToWaitForRefill());
		}

		void refund(long units) {
			// addTokens caps at capacity, so a refund can never create tokens.
			this.bucket.addTokens(units);
		}

	}

	/**
	 * Expires a bucket once it has been idle long enough to be full again.
	 * <p>
	 * Caffeine skips an expiry update that moves the deadline by no more than one second,
	 * so a deadline may lag up to a second behind the last access. The margin keeps a
	 * bucket until it is full even then; expiring it earlier would hand a client a full
	 * bucket it has not earned.
	 */
	private static final class UntilFull implements Expiry<BucketKey, LocalBucket> {

		private static final long CAFFEINE_EXPIRY_TOLERANCE_NANOS = TimeUnit.SECONDS.toNanos(1);

		@Override
		public long expireAfterCreate(BucketKey key, LocalBucket bucket, long currentTime) {
			return untilFull(bucket);
		}

		@Override
		public long expireAfterUpdate(BucketKey key, LocalBucket bucket, long currentTime, long currentDuration) {
			return untilFull(bucket);
		}

		@Override
		public long expireAfterRead(BucketKey key, LocalBucket bucket, long currentTime, long currentDuration) {
			return untilFull(bucket);
		}

		private static long untilFull(LocalBucket bucket) {
			return bucket.limits.refillPeriodNanos() + CAFFEINE_EXPIRY_TOLERANCE_NANOS;
		}

	}

	/**
	 * Bucket4j's view of a {@link TimeSource}. Not wall-clock based, which Bucket4j allows
	 * for local buckets and which lets tests drive time.
	 */
	private record TimeSourceMeter(TimeSource time) implements TimeMeter {

		@Override
		public long currentTimeNanos() {
			return this.time.nanoTime();
		}

		@Override
		public boolean isWallClockBased() {
			return false;
		}

	}

}
