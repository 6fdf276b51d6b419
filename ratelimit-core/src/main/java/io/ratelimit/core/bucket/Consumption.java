package io.ratelimit.core.bucket;

/**
 * The outcome of one attempt to take tokens from a bucket, as a value rather than an
 * exception: everything the response fields need.
 *
 * @param consumed whether the tokens were taken
 * @param remainingUnits the units left in the bucket afterwards (see
 * {@link BucketLimits#UNITS_PER_TOKEN})
 * @param nanosToWait when not consumed, the nanoseconds until the requested tokens are
 * there; {@code 0} when consumed
 */
public record Consumption(boolean consumed, long remainingUnits, long nanosToWait) {

	/**
	 * Returns the whole tokens left, the {@code r} of the {@code RateLimit} field.
	 * @return the remaining whole tokens
	 */
	public long remainingTokens() {
		return this.remainingUnits / BucketLimits.UNITS_PER_TOKEN;
	}

}
