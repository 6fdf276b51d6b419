package io.ratelimit.sample.adversarial;

import java.util.Arrays;
import java.util.Locale;

/**
 * Prints the measured figures of the adversarial suite, one line each with the prefix
 * {@code [adversarial]}, so a run's output can be grepped for the numbers docs/security.md
 * quotes.
 */
final class Figures {

	private Figures() {
	}

	static void record(String scenario, String format, Object... args) {
		System.out.println("[adversarial] " + scenario + ": " + String.format(Locale.ROOT, format, args));
	}

	/**
	 * Returns a percentile of some latencies, by nearest rank.
	 * @param nanos the latencies; sorted in place
	 * @param percentile between 0 and 100
	 * @return the latency at that rank, in microseconds
	 */
	static double percentileMicros(long[] nanos, double percentile) {
		Arrays.sort(nanos);
		int rank = (int) Math.ceil(percentile / 100 * nanos.length) - 1;
		return nanos[Math.max(0, Math.min(nanos.length - 1, rank))] / 1000.0;
	}

	static boolean fullRun() {
		return Boolean.getBoolean("ratelimit.adversarial.full");
	}

}
