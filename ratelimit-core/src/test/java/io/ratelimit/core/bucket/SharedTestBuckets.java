package io.ratelimit.core.bucket;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.local.LocalBucketBuilder;
import io.ratelimit.core.TimeSource;

/**
 * A {@link LeasableBucketStore} of plain Bucket4j buckets, standing in for the shared store
 * of several replicas in one test: every call is counted, and {@link #fail} makes the next
 * calls throw as a lost Redis would.
 */
public final class SharedTestBuckets implements LeasableBucketStore {

	private final ConcurrentHashMap<BucketKey, Bucket> buckets = new ConcurrentHashMap<>();

	private final TimeMeter clock;

	private final AtomicInteger calls = new AtomicInteger();

	private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

	public SharedTestBuckets(TimeSource time) {
		this.clock = WallClockMeter.of(time);
	}

	public int calls() {
		return this.calls.get();
	}

	public void fail(RuntimeException failure) {
		this.failure.set(failure);
	}

	public long availableUnits(BucketKey key, BucketLimits limits) {
		return bucket(key, limits).getAvailableTokens();
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		call();
		ConsumptionProbe probe = bucket(key, limits)
			.tryConsumeAndReturnRemaining(tokens * BucketLimits.UNITS_PER_TOKEN);
		return new Consumption(probe.isConsumed(), probe.getRemainingTokens(),
				probe.isConsumed() ? 0 : probe.getNanosToWaitForRefill());
	}

	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		giveBack(key, limits, tokens * BucketLimits.UNITS_PER_TOKEN);
	}

	@Override
	public Grant lease(BucketKey key, BucketLimits limits, long maximumUnits) {
		call();
		VerboseResult<Long> result = bucket(key, limits).asVerbose().tryConsumeAsMuchAsPossible(maximumUnits);
		return new Grant(result.getValue(), result.getDiagnostics().getAvailableTokens());
	}

	@Override
	public void giveBack(BucketKey key, BucketLimits limits, long units) {
		call();
		bucket(key, limits).addTokens(units);
	}

	@Override
	public void charge(BucketKey key, BucketLimits limits, long units) {
		call();
		bucket(key, limits).consumeIgnoringRateLimits(units);
	}

	@Override
	public BucketStoreStats stats() {
		return new BucketStoreStats(this.buckets.size(), 0);
	}

	private void call() {
		this.calls.incrementAndGet();
		RuntimeException failure = this.failure.get();
		if (failure != null) {
			throw failure;
		}
	}

	private Bucket bucket(BucketKey key, BucketLimits limits) {
		return this.buckets.computeIfAbsent(key, (absent) -> {
			LocalBucketBuilder builder = Bucket.builder().withCustomTimePrecision(this.clock);
			for (Bandwidth bandwidth : limits.configuration().getBandwidths()) {
				builder.addLimit(bandwidth);
			}
			return builder.build();
		});
	}

}
