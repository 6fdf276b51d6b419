package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

/** Jitter that always draws the top of its range, so that tests can state exact waits. */
final class MaximalRandom implements RandomGenerator {

	@Override
	public long nextLong() {
		return Long.MAX_VALUE;
	}

	@Override
	public long nextLong(long bound) {
		return bound - 1;
	}

	@Override
	public long nextLong(long origin, long bound) {
		return bound - 1;
	}

	@Override
	public double nextDouble() {
		return Math.nextDown(1.0);
	}

	@Override
	public double nextDouble(double origin, double bound) {
		return Math.nextDown(bound);
	}

}
