import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The load of the scaling experiment: {@code rps} requests a second to each path, spread
 * round-robin over the replicas, on a fixed schedule (a late request does not move the
 * later ones), for a warm-up and then a measured window. Only the requests sent in the
 * window count, so the buckets are already drained when the window opens and the admitted
 * rate is the refill rate of the buckets that decide.
 * <p>
 * Run by {@code scripts/scaling-experiment.sh}; on its own:
 * {@code java scripts/ScalingLoad.java <rps> <warm-up s> <window s> <base-url,...> <path> [<path> ...]}
 */
public class ScalingLoad {

	public static void main(String[] args) throws Exception {
		if (args.length < 5) {
			System.err.println("usage: java ScalingLoad.java <rps per path> <warm-up seconds> <window seconds> "
					+ "<base url,base url,...> <path> [<path> ...]");
			System.exit(2);
		}
		double rps = Double.parseDouble(args[0]);
		double warmUp = Double.parseDouble(args[1]);
		double window = Double.parseDouble(args[2]);
		String[] replicas = args[3].split(",");
		List<String> paths = List.of(args).subList(4, args.length);

		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(2))
			.build();
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
		ExecutorService senders = Executors.newFixedThreadPool(replicas.length * paths.size());
		List<List<Future<Counts>>> results = new ArrayList<>();
		for (String path : paths) {
			List<Future<Counts>> perReplica = new ArrayList<>();
			for (int r = 0; r < replicas.length; r++) {
				int replica = r;
				perReplica.add(senders.submit(() -> send(http, replicas, replica, path, rps, warmUp, window, start)));
			}
			results.add(perReplica);
		}
		System.out.printf(Locale.ROOT, "| path | replicas | offered | admitted (200) | refused (429) | other | "
				+ "admitted rate | admitted per replica |%n|---|---|---|---|---|---|---|---|%n");
		for (int p = 0; p < paths.size(); p++) {
			Counts total = new Counts();
			List<Integer> perReplica = new ArrayList<>();
			for (Future<Counts> part : results.get(p)) {
				Counts counts = part.get();
				total.add(counts);
				perReplica.add(counts.admitted);
			}
			System.out.printf(Locale.ROOT, "| `%s` | %d | %d sent in %.0f s (%.1f rps) | %d | %d | %d | %.1f rps | %s |%n",
					paths.get(p), replicas.length, total.sent, window, total.sent / window, total.admitted,
					total.refused, total.other, total.admitted / window, perReplica);
			if (total.other > 0) {
				System.err.println("Other answers to " + paths.get(p) + " (status: count, -1 for no answer): "
						+ total.otherStatuses);
			}
		}
		senders.shutdownNow();
	}

	/**
	 * Sends replica {@code replica}'s share: of the requests due every {@code 1 / rps}
	 * seconds, those numbered {@code replica} modulo the number of replicas.
	 */
	private static Counts send(HttpClient http, String[] replicas, int replica, String path, double rps,
			double warmUp, double window, long start) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(replicas[replica] + path))
			.timeout(Duration.ofSeconds(5))
			.build();
		long interval = (long) (TimeUnit.SECONDS.toNanos(1) / rps);
		long windowStart = start + (long) (warmUp * 1e9);
		long windowEnd = windowStart + (long) (window * 1e9);
		Counts counts = new Counts();
		for (long i = replica;; i += replicas.length) {
			long wait = start + i * interval - System.nanoTime();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			long sending = System.nanoTime();
			if (sending >= windowEnd) {
				return counts;
			}
			int status;
			try {
				status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
			}
			catch (java.io.IOException ex) {
				status = -1;
			}
			if (sending >= windowStart) {
				counts.count(status);
			}
		}
	}

	private static final class Counts {

		int sent;

		int admitted;

		int refused;

		int other;

		final java.util.Map<Integer, Integer> otherStatuses = new java.util.TreeMap<>();

		void count(int status) {
			this.sent++;
			if (status == 200) {
				this.admitted++;
			}
			else if (status == 429) {
				this.refused++;
			}
			else {
				this.other++;
				this.otherStatuses.merge(status, 1, Integer::sum);
			}
		}

		void add(Counts counts) {
			this.sent += counts.sent;
			this.admitted += counts.admitted;
			this.refused += counts.refused;
			this.other += counts.other;
			counts.otherStatuses.forEach((status, n) -> this.otherStatuses.merge(status, n, Integer::sum));
		}

	}

}
