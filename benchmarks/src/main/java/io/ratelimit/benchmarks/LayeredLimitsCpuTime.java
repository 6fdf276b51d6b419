package io.ratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

import io.ratelimit.core.Decision;

/**
 * {@link LayeredLimitsBenchmark}'s decision timed in the CPU time of the thread that makes
 * it rather than in elapsed time, for a host other work shares: time the thread spends
 * descheduled is not counted, which elapsed time counts in full. Both states (one limit and
 * three) are set up in one JVM and timed in alternating batches of two million decisions
 * after five warm-up batches each; it prints each one's median and fastest batch, and the
 * median of the batches' ratios (three limits over one, batch by batch). Cache and core
 * contention with other work still show; JMH's elapsed-time figures on a quiet host remain
 * the reference. Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.ratelimit.benchmarks.LayeredLimitsCpuTime 9
 * </pre>
 */
public final class LayeredLimitsCpuTime {

	private static final int BATCH = 2_000_000;

	private static final int WARMUP_BATCHES = 5;

	private LayeredLimitsCpuTime() {
	}

	public static void main(String[] args) {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 9;
		int[] limits = { 1, 3 };
		LayeredLimitsBenchmark[] states = new LayeredLimitsBenchmark[limits.length];
		for (int i = 0; i < limits.length; i++) {
			states[i] = new LayeredLimitsBenchmark();
			states[i].limits = limits[i];
			states[i].setUp();
		}
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		for (int w = 0; w < WARMUP_BATCHES; w++) {
			for (LayeredLimitsBenchmark state : states) {
				batch(state);
			}
		}
		double[][] nanosPerDecision = new double[limits.length][rounds];
		for (int r = 0; r < rounds; r++) {
			for (int i = 0; i < states.length; i++) {
				long started = threads.getCurrentThreadCpuTime();
				batch(states[i]);
				nanosPerDecision[i][r] = (double) (threads.getCurrentThreadCpuTime() - started) / BATCH;
			}
		}
		double[] ratios = new double[rounds];
		for (int r = 0; r < rounds; r++) {
			ratios[r] = nanosPerDecision[1][r] / nanosPerDecision[0][r];
		}
		for (int i = 0; i < limits.length; i++) {
			double[] sorted = nanosPerDecision[i].clone();
			Arrays.sort(sorted);
			System.out.printf("limits=%d: CPU ns per decision, median %.1f, fastest %.1f%n", limits[i],
					sorted[rounds / 2], sorted[0]);
		}
		Arrays.sort(ratios);
		System.out.printf("three over one, median of the batches' ratios %.2f (%.2f to %.2f)%n", ratios[rounds / 2],
				ratios[0], ratios[rounds - 1]);
	}

	private static void batch(LayeredLimitsBenchmark state) {
		Decision last = null;
		for (int i = 0; i < BATCH; i++) {
			last = state.evaluate();
		}
		Checks.require(last != null && !last.isRejected(), "every decision admitted");
	}

}
