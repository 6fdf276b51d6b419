package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Objects;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a token bucket: capacity {@code C = max(beta * rps, minimum)} tokens,
 * refilled greedily at {@code rps} tokens per second.
 * <p>
 * Buckets count in {@value #UNITS_PER_TOKEN} units per token, so that fractional limits
 * (5 per minute), fractional capacities and the exact remaining fraction used by the
 * {@code RateLimit} fields are all represented without rounding drift.
 */
public final class BucketLimits {

	/** Units a bucket counts per token (per request of weight one). */
	public static final long UNITS_PER_TOKEN = 1000;

	private static final BigDecimal UNITS = BigDecimal.valueOf(UNITS_PER_TOKEN);

	private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

	private final BigDecimal rps;

	private final long capacityUnits;

	private final long refillPeriodNanos;

	private final BucketConfiguration configuration;

	private BucketLimits(BigDecimal rps, long capacityUnits) {
		// The whole capacity refills in C / rps seconds.
		this(rps, capacityUnits, BigDecimal.valueOf(capacityUnits)
			.multiply(NANOS_PER_SECOND)
			.divide(rps.multiply(UNITS), 0, RoundingMode.HALF_UP)
			.longValueExact());
	}

	private BucketLimits(BigDecimal rps, long capacityUnits, long refillPeriodNanos) {
		this.rps = rps;
		this.capacityUnits = capacityUnits;
		this.refillPeriodNanos = Math.max(1, refillPeriodNanos);
		this.configuration = BucketConfiguration.builder()
			.addLimit(Bandwidth.builder()
				.capacity(capacityUnits)
				.refillGreedy(capacityUnits, Duration.ofNanos(this.refillPeriodNanos))
				.build())
			.build();
	}

	/**
	 * Returns the limits of a policy.
	 * @param rps the refill rate in tokens per second, positive
	 * @param burstFactor the burst factor {@code beta}, at least 1
	 * @param minimumTokens the smallest capacity in tokens, at least 1: the weight of the
	 * heaviest request that must be able to pass
	 * @return the limits
	 */
	public static BucketLimits of(BigDecimal rps, BigDecimal burstFactor, long minimumTokens) {
		Objects.requireNonNull(rps, "rps must not be null");
		Objects.requireNonNull(burstFactor, "burstFactor must not be null");
		if (rps.signum() <= 0) {
			throw new IllegalArgumentException("The rate must be positive, but was " + rps);
		}
		if (burstFactor.compareTo(BigDecimal.ONE) < 0) {
			throw new IllegalArgumentException("The burst factor must be at least 1, but was " + burstFactor);
		}
		if (minimumTokens < 1) {
			throw new IllegalArgumentException("The minimum capacity must be at least 1 token, but was " + minimumTokens);
		}
		long burstUnits = rps.multiply(burstFactor).multiply(UNITS).setScale(0, RoundingMode.FLOOR).longValueExact();
		return new BucketLimits(rps, Math.max(burstUnits, Math.multiplyExact(minimumTokens, UNITS_PER_TOKEN)));
	}

	/**
	 * Returns the limits of a count per window: {@code count} tokens refilled evenly over
	 * {@code window}, in a bucket of {@code burst} tokens. With the burst equal to the count,
	 * a client may spend a whole window's allowance at once, then waits for it to refill, and
	 * the {@code RateLimit-Policy} item reads {@code q=count;w=window}.
	 * @param count the tokens per window, positive
	 * @param window the window, positive, in whole milliseconds at most
	 * @param burst the capacity in tokens, positive
	 * @return the limits
	 */
	public static BucketLimits perWindow(long count, Duration window, long burst) {
		Objects.requireNonNull(window, "window must not be null");
		if (count < 1) {
			throw new IllegalArgumentException("The count must be positive, but was " + count);
		}
		if (window.isNegative() || window.isZero()) {
			throw new IllegalArgumentException("The window must be positive, but was " + window);
		}
		if (burst < 1) {
			throw new IllegalArgumentException("The burst must be at least 1 token, but was " + burst);
		}
		BigDecimal windowNanos = BigDecimal.valueOf(window.toNanos());
		BigDecimal rps = BigDecimal.valueOf(count).multiply(NANOS_PER_SECOND).divide(windowNanos, 9, RoundingMode.HALF_UP);
		// The whole capacity refills in burst / count windows; exact, not through the rounded rate.
		long refillPeriodNanos = BigDecimal.valueOf(burst)
			.multiply(windowNanos)
			.divide(BigDecimal.valueOf(count), 0, RoundingMode.HALF_UP)
			.longValueExact();
		return new BucketLimits(rps, Math.multiplyExact(burst, UNITS_PER_TOKEN), refillPeriodNanos);
	}

	/**
	 * Returns limits with the same rate and a capacity of at least the given number of
	 * tokens, so that a request of that weight can ever pass.
	 * @param tokens the smallest capacity in tokens
	 * @return these limits if they are large enough, otherwise enlarged limits
	 */
	public BucketLimits withCapacityOfAtLeast(long tokens) {
		long units = Math.multiplyExact(tokens, UNITS_PER_TOKEN);
		return (units <= this.capacityUnits) ? this : new BucketLimits(this.rps, units);
	}

	/**
	 * Returns the refill rate.
	 * @return tokens per second
	 */
	public BigDecimal rps() {
		return this.rps;
	}

	/**
	 * Returns the capacity.
	 * @return the capacity in units
	 */
	public long capacityUnits() {
		return this.capacityUnits;
	}

	/**
	 * Returns the time an empty bucket takes to fill up, which is also how long a bucket
	 * may stay idle before forgetting it loses nothing.
	 * @return the refill period in nanoseconds
	 */
	public long refillPeriodNanos() {
		return this.refillPeriodNanos;
	}

	/**
	 * Returns the quota {@code q} of the {@code RateLimit-Policy} field: the whole tokens
	 * a full bucket holds.
	 * @return the capacity in whole tokens
	 */
	public long quota() {
		return this.capacityUnits / UNITS_PER_TOKEN;
	}

	/**
	 * Returns the window {@code w} of the {@code RateLimit-Policy} field:
	 * {@code ceil(C / rps)} seconds, so that {@code q / w} is about the sustained rate.
	 * @return the window in seconds, at least 1
	 */
	public long windowSeconds() {
		return Math.max(1, ceilDiv(this.refillPeriodNanos, 1_000_000_000L));
	}

	/**
	 * Returns the nanoseconds until a bucket holding the given units gains enough to hold
	 * one more whole token, or {@code 0} when it is full.
	 * @param remainingUnits the units in the bucket
	 * @return nanoseconds until the whole-token count grows
	 */
	public long nanosUntilNextToken(long remainingUnits) {
		if (remainingUnits >= this.capacityUnits) {
			return 0;
		}
		long missingUnits = UNITS_PER_TOKEN - (remainingUnits % UNITS_PER_TOKEN);
		return nanosToRefill(missingUnits);
	}

	/**
	 * Returns the nanoseconds the bucket takes to gain the given units, rounded up.
	 * @param units the units, at most the capacity
	 * @return the nanoseconds
	 */
	long nanosToRefill(long units) {
		long high = Math.multiplyHigh(units, this.refillPeriodNanos);
		if (high == 0 && units * this.refillPeriodNanos >= 0) {
			return ceilDiv(units * this.refillPeriodNanos, this.capacityUnits);
		}
		// Only for limits of a few requests per decade; precision no longer matters there.
		return (long) Math.ceil((double) units * this.refillPeriodNanos / this.capacityUnits);
	}

	/**
	 * Returns this shape as a Bucket4j configuration (one greedy bandwidth counted in
	 * units), for stores built on Bucket4j outside this package.
	 * @return the configuration
	 */
	public BucketConfiguration configuration() {
		return this.configuration;
	}

	static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof BucketLimits limits && this.capacityUnits == limits.capacityUnits
				&& this.refillPeriodNanos == limits.refillPeriodNanos);
	}

	@Override
	public int hashCode() {
		return Long.hashCode(this.capacityUnits) * 31 + Long.hashCode(this.refillPeriodNanos);
	}

	@Override
	public String toString() {
		return "BucketLimits[rps=" + this.rps.toPlainString() + ", capacity=" + (double) this.capacityUnits / UNITS_PER_TOKEN
				+ "]";
	}

}
