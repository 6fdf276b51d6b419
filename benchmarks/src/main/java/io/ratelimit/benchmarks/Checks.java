package io.ratelimit.benchmarks;

/**
 * Setup assertions: a benchmark whose fixture does not do what its javadoc says fails at
 * once instead of measuring something else.
 */
final class Checks {

	private Checks() {
	}

	static void require(boolean condition, String expectation) {
		if (!condition) {
			throw new IllegalStateException("Benchmark fixture is wrong: expected " + expectation);
		}
	}

}
