import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The load of the overload experiment (scripts/overload-experiment.sh), two modes:
 * <ul>
 * <li>{@code capacity <base-url> <seconds> <workers>}: a closed loop of {@code workers}
 * clients, each sending its next request when the last one was answered, a fifth of them
 * {@code POST /api/payments} and the rest {@code GET /api/reports}; prints the requests
 * answered with 2xx per second, and the P50 and P99 of one client alone (the unloaded
 * latency), as {@code capacity <rps> <p50 ms> <p99 ms>}.</li>
 * <li>{@code ramp <base-url> <arm> <capacity rps> <step seconds> <recovery seconds>
 * <multiple> [<multiple> ...]}: an open loop (each request leaves at its scheduled time,
 * whatever the answers to earlier ones) at each multiple of the capacity in turn, then at
 * half the capacity for the recovery time; every fifth request is a payment (critical),
 * the others reports (sheddable). Prints one tab-separated line per step: arm, multiple,
 * offered rps, goodput (2xx per second), P50 and P99 of the 2xx answers in ms, the share
 * of payments and of reports answered 2xx, the share refused (429 or 503) and the share
 * that failed otherwise or timed out; then the recovery time, from the end of the last
 * step until the first quarter second from which every request was answered 2xx.</li>
 * </ul>
 * Each step's figures count the requests sent in its last {@code step - 2} seconds, after
 * the change of rate settled. A request unanswered after two seconds has timed out.
 */
public class OverloadLoad {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(TIMEOUT)
		.build();

	public static void main(String[] args) throws Exception {
		if (args.length >= 4 && args[0].equals("capacity")) {
			capacity(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
		}
		else if (args.length >= 7 && args[0].equals("ramp")) {
			double[] multiples = Arrays.stream(args, 6, args.length).mapToDouble(Double::parseDouble).toArray();
			ramp(args[1], args[2], Double.parseDouble(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
					multiples);
		}
		else {
			System.err.println("usage: java OverloadLoad.java capacity <base-url> <seconds> <workers>\n"
					+ "       java OverloadLoad.java ramp <base-url> <arm> <capacity rps> <step s> <recovery s> <multiple>...");
			System.exit(2);
		}
	}

	private static HttpRequest request(String base, long index) {
		boolean critical = index % 5 == 0;
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + (critical ? "/api/payments" : "/api/reports")))
			.timeout(TIMEOUT);
		return (critical ? request.POST(HttpRequest.BodyPublishers.noBody()) : request.GET()).build();
	}

	private static void capacity(String base, int seconds, int workers) throws Exception {
		long[] loaded = closedLoop(base, workers, seconds);
		// After the loaded run, and long enough for a P99 that is not one request: a short
		// first run read the JVM's first minute (a one-client P99 of 389 ms against 67 ms).
		long[] single = closedLoop(base, 1, Math.max(10, 2 * seconds));
		double rps = loaded.length / (double) seconds;
		Arrays.sort(single);
		System.out.printf(Locale.ROOT, "capacity\t%.1f\t%.2f\t%.2f%n", rps, millis(percentile(single, 0.5)),
				millis(percentile(single, 0.99)));
	}

	/** Returns the latencies of the 2xx answers a closed loop got in the given time. */
	private static long[] closedLoop(String base, int workers, int seconds) throws Exception {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		List<long[]> all = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		AtomicLong next = new AtomicLong();
		for (int w = 0; w < workers; w++) {
			long[][] mine = { new long[1024] };
			int[] count = { 0 };
			Thread thread = new Thread(() -> {
				while (System.nanoTime() < end) {
					long start = System.nanoTime();
					try {
						HttpResponse<Void> response = CLIENT.send(request(base, next.getAndIncrement()),
								HttpResponse.BodyHandlers.discarding());
						if (response.statusCode() / 100 == 2) {
							if (count[0] == mine[0].length) {
								mine[0] = Arrays.copyOf(mine[0], count[0] * 2);
							}
							mine[0][count[0]++] = System.nanoTime() - start;
						}
					}
					catch (Exception ex) {
						// A failed request is simply not counted.
					}
				}
				synchronized (all) {
					all.add(Arrays.copyOf(mine[0], count[0]));
				}
			});
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		return all.stream().flatMapToLong(Arrays::stream).toArray();
	}

	private static void ramp(String base, String arm, double capacity, int stepSeconds, int recoverySeconds,
			double[] multiples) throws Exception {
		int steps = multiples.length + 1;
		double[] rates = new double[steps];
		long[] stepStart = new long[steps + 1];
		long total = 0;
		for (int s = 0; s < steps; s++) {
			rates[s] = capacity * ((s < multiples.length) ? multiples[s] : 0.5);
			int seconds = (s < multiples.length) ? stepSeconds : recoverySeconds;
			stepStart[s + 1] = stepStart[s] + TimeUnit.SECONDS.toNanos(seconds);
			total += (long) Math.ceil(rates[s] * seconds) + 1;
		}
		int n = (int) total;
		long[] sentAt = new long[n];
		long[] latency = new long[n];
		int[] status = new int[n];
		CountDownLatch done = new CountDownLatch(n);
		long origin = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
		int i = 0;
		for (int s = 0; s < steps; s++) {
			long interval = (long) (1e9 / rates[s]);
			for (long at = stepStart[s]; at < stepStart[s + 1] && i < n; at += interval, i++) {
				long wait = origin + at - System.nanoTime();
				if (wait > 0) {
					LockSupport.parkNanos(wait);
				}
				int index = i;
				long sent = System.nanoTime();
				sentAt[index] = at;
				CLIENT.sendAsync(request(base, index), HttpResponse.BodyHandlers.discarding())
					.whenComplete((response, failure) -> {
						latency[index] = System.nanoTime() - sent;
						status[index] = (response != null) ? response.statusCode() : -1;
						done.countDown();
					});
			}
		}
		for (int unused = i; unused < n; unused++) {
			done.countDown();
		}
		done.await(TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
		int sent = i;
		for (int s = 0; s < multiples.length; s++) {
			report(arm, String.format(Locale.ROOT, "%.1f×", multiples[s]), rates[s], stepStart[s] + SETTLE_NANOS, stepStart[s + 1], sentAt, latency, status,
					sent);
		}
		report(arm, "0.5× after", rates[multiples.length], stepStart[multiples.length] + SETTLE_NANOS,
				stepStart[multiples.length + 1], sentAt, latency, status, sent);
		System.out.printf(Locale.ROOT, "recovery\t%s\t%s%n", arm,
				recovery(stepStart[multiples.length], stepStart[multiples.length + 1], sentAt, status, sent));
	}

	private static void report(String arm, String load, double rate, long from, long to, long[] sentAt,
			long[] latency, int[] status, int sent) {
		long[] ok = new long[sent];
		int okCount = 0;
		int[] perClass = new int[2];
		int[] okPerClass = new int[2];
		int refused = 0;
		int failed = 0;
		int count = 0;
		for (int i = 0; i < sent; i++) {
			if (sentAt[i] < from || sentAt[i] >= to) {
				continue;
			}
			count++;
			int type = (i % 5 == 0) ? 0 : 1;
			perClass[type]++;
			if (status[i] / 100 == 2) {
				ok[okCount++] = latency[i];
				okPerClass[type]++;
			}
			else if (status[i] == 429 || status[i] == 503) {
				refused++;
			}
			else {
				failed++;
			}
		}
		long[] admitted = Arrays.copyOf(ok, okCount);
		Arrays.sort(admitted);
		double seconds = (to - from) / 1e9;
		System.out.printf(Locale.ROOT, "step\t%s\t%s\t%.0f\t%.0f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f%n", arm, load,
				rate, okCount / seconds, millis(percentile(admitted, 0.5)), millis(percentile(admitted, 0.99)),
				share(okPerClass[0], perClass[0]), share(okPerClass[1], perClass[1]), share(refused, count),
				share(failed, count));
	}

	/** Seconds from {@code from} until the first quarter second from which every request succeeded. */
	private static String recovery(long from, long to, long[] sentAt, int[] status, int sent) {
		long quarter = TimeUnit.MILLISECONDS.toNanos(250);
		int buckets = (int) ((to - from) / quarter);
		boolean[] clean = new boolean[buckets];
		Arrays.fill(clean, true);
		for (int i = 0; i < sent; i++) {
			if (sentAt[i] >= from && sentAt[i] < to && status[i] / 100 != 2) {
				clean[(int) ((sentAt[i] - from) / quarter)] = false;
			}
		}
		int first = buckets;
		for (int b = buckets - 1; b >= 0 && clean[b]; b--) {
			first = b;
		}
		return (first == buckets) ? "not within " + (to - from) / 1_000_000_000L + " s"
				: String.format(Locale.ROOT, "%.2f", first * 0.25);
	}

	private static double share(int part, int whole) {
		return (whole == 0) ? 0 : 100.0 * part / whole;
	}

	private static long percentile(long[] sorted, double p) {
		return (sorted.length == 0) ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
	}

	private static double millis(long nanos) {
		return nanos / 1e6;
	}

}
