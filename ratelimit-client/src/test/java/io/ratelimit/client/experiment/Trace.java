package io.ratelimit.client.experiment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A synthetic workload of the CCNC 2026 study: each client's request times, in seconds.
 *
 * <p>Generated from a seed as the study describes it: each client sends one request plus a
 * Poisson count with {@code λ = range / 2} (clipped to the range), the counts are scaled to
 * the wanted total, the gaps between a client's requests are exponential with scale λ, and
 * each client starts at a random time within the first 10 seconds. The study gives the gaps
 * no unit; here each client's gaps are scaled so that its requests spread over the trace's
 * five minutes, which is what its figures imply (400 to 800 requests in 5 minutes).
 *
 * @param arrivals the request times of each client, ascending, in seconds from the start
 */
record Trace(List<double[]> arrivals) {

	static final double LENGTH_SECONDS = 300;

	private static final double START_SPREAD_SECONDS = 10;

	static Trace generate(int clients, int maximumPerClient, int totalRequests, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		double lambda = maximumPerClient / 2.0;
		int[] counts = new int[clients];
		for (int i = 0; i < clients; i++) {
			counts[i] = Math.min(maximumPerClient, 1 + poisson(random, lambda));
		}
		scale(counts, totalRequests, maximumPerClient);
		List<double[]> arrivals = new ArrayList<>();
		for (int count : counts) {
			double start = random.nextDouble(START_SPREAD_SECONDS);
			double[] gaps = new double[count];
			double sum = 0;
			for (int j = 0; j < count; j++) {
				gaps[j] = -lambda * Math.log(1 - random.nextDouble());
				sum += gaps[j];
			}
			// The first request goes at the start; the rest spread over what is left of the trace.
			double unit = (sum > 0) ? (LENGTH_SECONDS - start) / (sum + gaps[0]) : 0;
			double[] times = new double[count];
			double t = start;
			for (int j = 0; j < count; j++) {
				times[j] = t;
				t += gaps[j] * unit;
			}
			arrivals.add(times);
		}
		return new Trace(List.copyOf(arrivals));
	}

	int totalRequests() {
		return this.arrivals.stream().mapToInt((times) -> times.length).sum();
	}

	/** Scales the counts to the total, keeping each within [1, maximum]. */
	private static void scale(int[] counts, int total, int maximum) {
		if (total < counts.length || total > counts.length * maximum) {
			throw new IllegalArgumentException("Cannot spread " + total + " requests over " + counts.length
					+ " clients of at most " + maximum);
		}
		double factor = (double) total / Arrays.stream(counts).sum();
		int sum = 0;
		for (int i = 0; i < counts.length; i++) {
			counts[i] = Math.max(1, Math.min(maximum, (int) Math.round(counts[i] * factor)));
			sum += counts[i];
		}
		for (int i = 0; sum != total; i = (i + 1) % counts.length) {
			if (sum < total && counts[i] < maximum) {
				counts[i]++;
				sum++;
			}
			else if (sum > total && counts[i] > 1) {
				counts[i]--;
				sum--;
			}
		}
	}

	/** Knuth's method for small λ, the normal approximation above it. */
	private static int poisson(SplittableRandom random, double lambda) {
		if (lambda > 30) {
			double gaussian = random.nextGaussian() * Math.sqrt(lambda) + lambda;
			return (int) Math.max(0, Math.round(gaussian));
		}
		double limit = Math.exp(-lambda);
		double product = random.nextDouble();
		int count = 0;
		while (product > limit) {
			product *= random.nextDouble();
			count++;
		}
		return count;
	}

}
