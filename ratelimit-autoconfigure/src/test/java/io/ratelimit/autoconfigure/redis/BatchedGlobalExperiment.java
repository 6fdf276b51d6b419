package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BurstHandling;
import io.ratelimit.core.bucket.LeaseSizing;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exact against batched global buckets, at the bucket-store level, for
 * {@code docs/scaling.md}: what a decision costs in Redis round trips and latency, and how
 * closely the replicas together keep the limit, when Redis is near and when it is far.
 * <p>
 * Workload, for each one-way delay in {0, 1, 20} ms, each mode and each key spread: one
 * Redis server of the test's own; three replicas, each its own Lettuce client (built as the
 * auto-configuration builds it, with a request timeout of 5 s so that far Redis is
 * measured, not timeouts) and {@link RedisBucketStore}, connected through its own
 * {@link DelayingTcpProxy} (a round trip costs twice the delay; at 0 ms the proxy is still
 * in the path, so every row pays for the same extra hop). Exact mode is
 * {@code FailoverBucketStore(RedisBucketStore)}; batched mode is
 * {@code FailoverBucketStore(LeasedBucketStore(RedisBucketStore))} with the default lease
 * sizing, a 1 s idle return and the auto-configuration's background threads; both with the
 * LOCAL failure mode, a threshold of 3 and a 5 s cooldown (the defaults). The policy is
 * 1,000 requests per second with a capacity of 1,000. Each replica is offered 1,000
 * decisions per second on an open-loop schedule (a fixed arrival every millisecond, spread
 * over enough sender threads that a slow answer does not hold the next arrival back), for a
 * 2 s warm-up and a 10 s measured window; the offered load is one hot key (three times the
 * limit), 1,000 keys picked uniformly at random (about 3 requests per second each, nothing
 * to refuse), or, chosen with {@code ratelimit.experiment.workloads}, 1,000 keys picked by a
 * Zipf law of exponent 1 ({@code zipf_keys}: the first key gets 13 % of the requests),
 * 100,000 keys picked uniformly ({@code sparse_keys}: each seen about once in 100 s by a
 * replica) or by Zipf ({@code zipf_sparse_keys}). {@code ratelimit.experiment.modes}
 * chooses the modes, {@code ratelimit.experiment.rps} the limit (capacity one second of it)
 * {@code ratelimit.experiment.flush-ms} the flush interval of batched mode's pipelined
 * connection, and {@code ratelimit.experiment.burst} ({@code wait} or {@code refuse}) what it
 * does with a burst beyond a key's lease and credit. {@code ratelimit.experiment.fault} adds a failure to every row: {@code kill}
 * kills the third replica in the middle of the window (its senders stop, nothing more it
 * sends reaches Redis, and it gives nothing back), {@code outage} stops Redis for 2 s from
 * 3 s into the window (every connection closed, new ones refused).
 * <p>
 * Reported per row, over the window: round trips per decision (each command of the request
 * path, plus each write of the pipelined connection that carried commands); Redis commands
 * per decision from the server's
 * {@code INFO commandstats} (every command counted as one round trip, so the commands a
 * script runs inside Redis count too, which overstates round trips) beside the commands the
 * clients sent (a Lettuce {@link CommandListener}: the actual request/answer exchanges); P50
 * and P99 of the time spent inside {@code tryConsume}; the admitted rate against the limit
 * (hot key) or the admitted share (1,000 keys); and the throttling deviation: each key's
 * decisions of all replicas, merged in send-time order from the key's first decision, are
 * replayed through an exact token bucket of the same limits, and the per-key differences
 * between admitted-by-the-run and admitted-by-the-replay over the window are summed and
 * divided by the window's decisions; the excess is the sum of the per-key amounts the run
 * admitted beyond the replay. A decision counts in the window by the time it was sent.
 * The fallbacks are the window's decisions taken by the failure mode (a timeout, or the
 * cooldown after three): a row with any was partly decided locally. A line per row
 * before the table adds how late the senders ran behind their schedule, the admissions
 * of each second, the commands by name and the lease counts. Only sanity is asserted; the
 * figures are the result.
 * <p>
 * Runs about four minutes with the default workloads (hot key and 1,000 keys, both modes),
 * about seven for the five workloads of batched mode, only when asked:
 * <pre>
 * ./mvnw -q -o -pl ratelimit-core,ratelimit-autoconfigure test -Dtest=BatchedGlobalExperiment \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.experiment=batched \
 *     -Dratelimit.experiment.modes=batched \
 *     -Dratelimit.experiment.workloads=hot_key,many_keys,zipf_keys,sparse_keys,zipf_sparse_keys
 * </pre>
 */
@EnabledIfSystemProperty(named = "ratelimit.experiment", matches = "batched")
class BatchedGlobalExperiment {

	/** Starts the lines to look for in the output. */
	static final String MARKER = "[batched-global-experiment]";

	/** The policy: 1,000 per second unless set, with a capacity of one second's refill. */
	private static final BucketLimits LIMITS = BucketLimits
		.of(new BigDecimal(System.getProperty("ratelimit.experiment.rps", "1000")), BigDecimal.ONE, 1);

	private static final int REPLICAS = 3;

	private static final int RATE_PER_REPLICA = 1000;

	private static final long ARRIVAL_NANOS = TimeUnit.SECONDS.toNanos(1) / RATE_PER_REPLICA;

	private static final int MANY_KEYS_COUNT = 1000;

	private static final int SPARSE_KEYS_COUNT = 100_000;

	private static final List<Mode> MODES = Arrays
		.stream(System.getProperty("ratelimit.experiment.modes", "exact,batched").split(","))
		.map((mode) -> Mode.valueOf(mode.strip().toUpperCase(Locale.ROOT)))
		.toList();

	private static final List<Workload> WORKLOADS = Arrays
		.stream(System.getProperty("ratelimit.experiment.workloads", "hot_key,many_keys").split(","))
		.map((workload) -> Workload.valueOf(workload.strip().toUpperCase(Locale.ROOT)))
		.toList();

	/** The batched background's flush interval: the default unless set. */
	private static final Duration FLUSH_INTERVAL = Duration.ofMillis(
			Long.getLong("ratelimit.experiment.flush-ms", RedisBucketStore.DEFAULT_FLUSH_WINDOW.toMillis()));

	/** What batched mode does with a burst beyond a key's lease and credit: wait unless set. */
	private static final BurstHandling BURSTS = BurstHandling
		.valueOf(System.getProperty("ratelimit.experiment.burst", "wait").strip().toUpperCase(Locale.ROOT));

	private static final long WARM_UP_NANOS = Duration.ofSeconds(2).toNanos();

	private static final long WINDOW_NANOS = Duration.ofSeconds(10).toNanos();

	/**
	 * Bucket4j's request timeout bounds a whole compare-and-swap with its retries, and three
	 * replicas contending for one key 40 ms away from Redis retry for more than a second: 5 s
	 * unless set ({@code ratelimit.experiment.timeout-ms}; the starter's default is 100 ms).
	 */
	private static final Duration TIMEOUT = Duration.ofMillis(Long.getLong("ratelimit.experiment.timeout-ms", 5000));

	private static final int[] DELAYS_MILLIS = Arrays.stream(System.getProperty("ratelimit.experiment.delays", "0,1,20")
		.split(",")).mapToInt((delay) -> Integer.parseInt(delay.strip())).toArray();

	/** The failure played in every row. */
	private static final Fault FAULT = Fault
		.valueOf(System.getProperty("ratelimit.experiment.fault", "none").strip().toUpperCase(Locale.ROOT));

	private static final long KILL_AT_NANOS = WARM_UP_NANOS + WINDOW_NANOS / 2;

	private static final long OUTAGE_FROM_NANOS = WARM_UP_NANOS + Duration.ofSeconds(3).toNanos();

	private static final long OUTAGE_NANOS = Duration.ofSeconds(2).toNanos();

	/** The lease sizing's horizon and the idle return of batched mode: the defaults unless set. */
	private static final Duration HORIZON = Duration.ofMillis(Long.getLong("ratelimit.experiment.horizon-ms", 100));

	private static final Duration IDLE_RETURN = Duration
		.ofMillis(Long.getLong("ratelimit.experiment.idle-return-ms", 1000));

	enum Mode {

		EXACT, BATCHED

	}

	enum Fault {

		NONE, KILL, OUTAGE

	}

	enum Workload {

		HOT_KEY("hot key", 1, false), MANY_KEYS("1,000 keys", MANY_KEYS_COUNT, false),
		ZIPF_KEYS("1,000 keys, Zipf", MANY_KEYS_COUNT, true),
		SPARSE_KEYS("100,000 keys", SPARSE_KEYS_COUNT, false),
		ZIPF_SPARSE_KEYS("100,000 keys, Zipf", SPARSE_KEYS_COUNT, true);

		private final String label;

		private final int keys;

		/** The cumulative weights of a Zipf choice (exponent 1), or null for a uniform one. */
		private final double @Nullable [] zipf;

		Workload(String label, int keys, boolean zipf) {
			this.label = label;
			this.keys = keys;
			this.zipf = zipf ? zipf(keys) : null;
		}

		int next(SplittableRandom random) {
			if (this.keys == 1) {
				return 0;
			}
			if (this.zipf == null) {
				return random.nextInt(this.keys);
			}
			int found = Arrays.binarySearch(this.zipf, random.nextDouble());
			return Math.min(this.keys - 1, (found >= 0) ? found : -found - 1);
		}

		private static double[] zipf(int keys) {
			double[] cumulative = new double[keys];
			double sum = 0;
			for (int rank = 0; rank < keys; rank++) {
				sum += 1.0 / (rank + 1);
				cumulative[rank] = sum;
			}
			for (int rank = 0; rank < keys; rank++) {
				cumulative[rank] /= sum;
			}
			return cumulative;
		}

	}

	@Test
	void tryConsumeWhenThreeReplicasShareRedisBehindDelayThenFiguresPrinted() throws Exception {
		List<Row> rows = new ArrayList<>();
		try (RedisServerProcess server = RedisServerProcess.start();
				CommandStats commands = new CommandStats(server.url())) {
			for (int delay : DELAYS_MILLIS) {
				for (Mode mode : MODES) {
					for (Workload workload : WORKLOADS) {
						rows.add(run(server, commands, Duration.ofMillis(delay), mode, workload));
					}
				}
			}
		}
		System.out.println(MARKER + " table");
		System.out.println(Row.HEADER);
		rows.forEach((row) -> System.out.println(row.markdown()));
		System.out.println(MARKER + " end");
		assertThat(rows).hasSize(DELAYS_MILLIS.length * MODES.size() * WORKLOADS.size())
			.allSatisfy((row) -> assertThat(row.decisions()).as(row.markdown()).isPositive());
	}

	private static Row run(RedisServerProcess server, CommandStats commands, Duration delay, Mode mode,
			Workload workload) throws Exception {
		String prefix = "experiment:" + delay.toMillis() + ":" + mode + ":" + workload + ":";
		List<Replica> replicas = new ArrayList<>();
		try {
			for (int i = 0; i < REPLICAS; i++) {
				replicas.add(Replica.start(server, prefix, mode));
			}
			// Connected and warm at no delay, as a replica is before its first request.
			replicas.forEach((replica) -> replica.proxy.delay(delay));
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
			List<Sender> senders = startSenders(replicas, workload, start, senders(delay));
			awaitNanoTime(start + WARM_UP_NANOS);
			Counts before = Counts.of(commands, replicas);
			if (FAULT == Fault.KILL) {
				awaitNanoTime(start + KILL_AT_NANOS);
				replicas.get(REPLICAS - 1).kill();
			}
			else if (FAULT == Fault.OUTAGE) {
				awaitNanoTime(start + OUTAGE_FROM_NANOS);
				replicas.forEach((replica) -> replica.proxy.down());
				awaitNanoTime(start + OUTAGE_FROM_NANOS + OUTAGE_NANOS);
				replicas.forEach((replica) -> replica.proxy.up());
			}
			awaitNanoTime(start + WARM_UP_NANOS + WINDOW_NANOS);
			Counts after = Counts.of(commands, replicas);
			for (Sender sender : senders) {
				sender.thread.join(TimeUnit.SECONDS.toMillis(60));
			}
			Row row = Row.of(delay, mode, workload, Decisions.merge(senders), before, after);
			System.out.println(MARKER + " " + row.markdown() + " | " + row.details(before, after));
			return row;
		}
		finally {
			for (Replica replica : replicas) {
				replica.close();
			}
		}
	}

	/**
	 * Senders per replica: enough to keep 1,000 arrivals a second going while each waits for
	 * its answer, which at 20 ms takes a few round trips of 40 ms when the replicas contend.
	 */
	private static int senders(Duration delay) {
		return 64 + 24 * (int) delay.toMillis();
	}

	private static List<Sender> startSenders(List<Replica> replicas, Workload workload, long start, int perReplica) {
		List<Sender> senders = new ArrayList<>();
		for (int r = 0; r < replicas.size(); r++) {
			for (int s = 0; s < perReplica; s++) {
				senders.add(new Sender(replicas.get(r), r, s, perReplica, workload, start));
			}
		}
		senders.forEach((sender) -> sender.thread.start());
		return senders;
	}

	static void awaitNanoTime(long due) {
		long wait;
		while ((wait = due - System.nanoTime()) > 0) {
			LockSupport.parkNanos(wait);
		}
	}

	/** One replica: its own proxy, Lettuce client and Redis store, and the store it decides with. */
	private static final class Replica implements AutoCloseable {

		private final DelayingTcpProxy proxy;

		private final RedisBucketStore redis;

		private final FailoverBucketStore store;

		private final LongAdder commandsSent;

		private final @Nullable LeasedBucketStore leases;

		private final @Nullable ExecutorService background;

		private volatile boolean killed;

		private Replica(DelayingTcpProxy proxy, RedisBucketStore redis, FailoverBucketStore store,
				LongAdder commandsSent, @Nullable LeasedBucketStore leases, @Nullable ExecutorService background) {
			this.proxy = proxy;
			this.redis = redis;
			this.store = store;
			this.commandsSent = commandsSent;
			this.leases = leases;
			this.background = background;
		}

		static Replica start(RedisServerProcess server, String prefix, Mode mode) throws Exception {
			DelayingTcpProxy proxy = DelayingTcpProxy.start("127.0.0.1", server.port(), Duration.ZERO);
			LongAdder sent = new LongAdder();
			RedisClient client = client(proxy.redisUrl());
			client.addListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					sent.increment();
				}
			});
			RedisBucketStore redis = new RedisBucketStore(client, prefix, TIMEOUT, 100_000, TimeSource.system())
				.flushWindow(FLUSH_INTERVAL);
			// As the auto-configuration does at startup.
			assertThat(redis.connect(Duration.ofSeconds(5)).connected()).isTrue();
			if (mode == Mode.EXACT) {
				return new Replica(proxy, redis, failover(redis), sent, null, null);
			}
			ExecutorService background = BatchedLeases.backgroundThreads();
			LeaseSizing defaults = LeaseSizing.defaults();
			LeaseSizing sizing = new LeaseSizing(HORIZON, defaults.maximumShare(), defaults.dynamic(),
					defaults.coldKeyShare());
			LeasedBucketStore leases = new LeasedBucketStore(redis, sizing, BURSTS, TIMEOUT, IDLE_RETURN, 100_000,
					background, TimeSource.system());
			return new Replica(proxy, redis, failover(leases), sent, leases, background);
		}

		/** As the auto-configuration builds it, but for the longer timeout. */
		private static RedisClient client(String url) {
			ClientResources resources = ClientResources.builder()
				.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
						TimeUnit.MILLISECONDS))
				.build();
			RedisURI uri = RedisURI.create(url);
			uri.setTimeout(TIMEOUT);
			RedisClient client = RedisClient.create(resources, uri);
			client.setOptions(ClientOptions.builder()
				.autoReconnect(true)
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
				.timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
				.build());
			return client;
		}

		private static FailoverBucketStore failover(BucketStore remote) {
			return new FailoverBucketStore(remote, RedisFailureMode.LOCAL, LocalBucketStore.create(100_000), 3,
					Duration.ofSeconds(5), TimeSource.system());
		}

		/**
		 * Kills the replica: its senders stop, and nothing it sends from now on reaches
		 * Redis, its charges and returns under way included.
		 */
		void kill() {
			this.killed = true;
			this.proxy.hang();
		}

		@Override
		public void close() throws Exception {
			// Leases go back at no delay: a thousand of them at 40 ms each would take a minute.
			this.proxy.delay(Duration.ZERO);
			if (this.leases != null && !this.killed) {
				this.leases.close();
			}
			if (this.background != null) {
				this.background.shutdownNow();
			}
			this.redis.close();
			this.proxy.close();
		}

	}

	/**
	 * One sender thread of a replica: arrival {@code index}, {@code index + senders}, ... of
	 * the replica's schedule, each sent at its time (or at once when the previous answer came
	 * late), none after the end.
	 */
	private static final class Sender implements Runnable {

		private final Replica replica;

		private final int replicaIndex;

		private final int index;

		private final int senders;

		private final Workload workload;

		private final long start;

		private final SplittableRandom random;

		private final Decisions decisions;

		private final Thread thread;

		Sender(Replica replica, int replicaIndex, int index, int senders, Workload workload, long start) {
			this.replica = replica;
			this.replicaIndex = replicaIndex;
			this.index = index;
			this.senders = senders;
			this.workload = workload;
			this.start = start;
			this.random = new SplittableRandom(31L * replicaIndex + index);
			int arrivals = (int) ((WARM_UP_NANOS + WINDOW_NANOS) / ARRIVAL_NANOS / senders) + 2;
			this.decisions = new Decisions(arrivals);
			// Small stacks: hundreds of threads that mostly wait for Redis.
			this.thread = new Thread(null, this, "experiment-" + replicaIndex + "-" + index, 256 * 1024);
			this.thread.setDaemon(true);
		}

		@Override
		public void run() {
			long end = this.start + WARM_UP_NANOS + WINDOW_NANOS;
			// The replicas' arrivals interleave instead of coinciding.
			long offset = ARRIVAL_NANOS * this.replicaIndex / REPLICAS;
			for (long arrival = this.index;; arrival += this.senders) {
				long due = this.start + offset + arrival * ARRIVAL_NANOS;
				if (due - end >= 0 || System.nanoTime() - end >= 0) {
					return;
				}
				awaitNanoTime(due);
				if (this.replica.killed) {
					return;
				}
				int key = this.workload.next(this.random);
				long sent = System.nanoTime();
				boolean admitted = this.replica.store.tryConsume(new BucketKey(7, key), LIMITS, 1).consumed();
				long latency = System.nanoTime() - sent;
				this.decisions.add(key, this.replicaIndex, sent - this.start, latency, sent - due, admitted);
			}
		}

	}

	/** Decisions as columns: key, replica, send time (from the start), latency, lateness, outcome. */
	static final class Decisions {

		final int[] keys;

		final byte[] replicas;

		final long[] sent;

		final long[] latencies;

		final long[] lateness;

		final boolean[] admitted;

		int size;

		Decisions(int capacity) {
			this.keys = new int[capacity];
			this.replicas = new byte[capacity];
			this.sent = new long[capacity];
			this.latencies = new long[capacity];
			this.lateness = new long[capacity];
			this.admitted = new boolean[capacity];
		}

		void add(int key, int replica, long sent, long latency, long lateness, boolean admitted) {
			this.keys[this.size] = key;
			this.replicas[this.size] = (byte) replica;
			this.sent[this.size] = sent;
			this.latencies[this.size] = latency;
			this.lateness[this.size] = lateness;
			this.admitted[this.size] = admitted;
			this.size++;
		}

		private static Decisions merge(List<Sender> senders) {
			int total = senders.stream().mapToInt((sender) -> sender.decisions.size).sum();
			Decisions all = new Decisions(total);
			for (Sender sender : senders) {
				Decisions part = sender.decisions;
				for (int i = 0; i < part.size; i++) {
					all.add(part.keys[i], part.replicas[i], part.sent[i], part.latencies[i], part.lateness[i],
							part.admitted[i]);
				}
			}
			return all;
		}

		boolean inWindow(int i) {
			return this.sent[i] >= WARM_UP_NANOS && this.sent[i] < WARM_UP_NANOS + WINDOW_NANOS;
		}

	}

	/**
	 * Replays each key's decisions of all replicas, in send-time order from the key's first
	 * (when the run created its bucket, full), through an exact token bucket of the same
	 * limits; returns the window's admissions by the replay and the summed per-key
	 * differences from the run's.
	 */
	static Replay replay(Decisions all) {
		Integer[] order = new Integer[all.size];
		Arrays.setAll(order, (i) -> i);
		Arrays.sort(order, (a, b) -> (all.keys[a] != all.keys[b]) ? Integer.compare(all.keys[a], all.keys[b])
				: Long.compare(all.sent[a], all.sent[b]));
		double capacity = (double) LIMITS.capacityUnits() / BucketLimits.UNITS_PER_TOKEN;
		double perNano = capacity / LIMITS.refillPeriodNanos();
		long replayAdmitted = 0;
		long deviation = 0;
		long excess = 0;
		int i = 0;
		while (i < order.length) {
			int key = all.keys[order[i]];
			double tokens = capacity;
			long last = all.sent[order[i]];
			long run = 0;
			long exact = 0;
			for (; i < order.length && all.keys[order[i]] == key; i++) {
				int d = order[i];
				tokens = Math.min(capacity, tokens + (all.sent[d] - last) * perNano);
				last = all.sent[d];
				boolean admitted = tokens >= 1;
				tokens -= admitted ? 1 : 0;
				if (all.inWindow(d)) {
					run += all.admitted[d] ? 1 : 0;
					exact += admitted ? 1 : 0;
				}
			}
			replayAdmitted += exact;
			deviation += Math.abs(run - exact);
			excess += Math.max(0, run - exact);
		}
		return new Replay(replayAdmitted, deviation, excess);
	}

	/**
	 * What the exact replay of a row's decisions found over the window.
	 *
	 * @param admitted the decisions the exact bucket admitted
	 * @param deviation the sum over keys of the differences between its admissions and the run's
	 * @param excess the sum over keys of what the run admitted beyond it
	 */
	record Replay(long admitted, long deviation, long excess) {
	}

	/** Counters read at the window's edges. */
	record Counts(Map<String, Long> serverCommands, long clientCommands, long roundTrips, long pipelineWrites,
			long pipelineCommands, long fallbacks, LeaseTotals leases) {

		static Counts of(CommandStats commands, List<Replica> replicas) {
			long sent = 0;
			long roundTrips = 0;
			long pipelineWrites = 0;
			long pipelineCommands = 0;
			long fallbacks = 0;
			LeaseTotals leases = LeaseTotals.NONE;
			for (Replica replica : replicas) {
				sent += replica.commandsSent.sum();
				// A command of the request path is a round trip of its own; the pipelined
				// connection's commands share its writes.
				RedisBucketStore.PipelineStats pipeline = replica.redis.pipelineStats();
				roundTrips += replica.commandsSent.sum() - pipeline.commands() + pipeline.roundTrips();
				pipelineWrites += pipeline.roundTrips();
				pipelineCommands += pipeline.commands();
				fallbacks += replica.store.fallbacks();
				if (replica.leases != null) {
					leases = leases.plus(replica.leases.leaseStats());
				}
			}
			return new Counts(commands.calls(), sent, roundTrips, pipelineWrites, pipelineCommands, fallbacks, leases);
		}

		long serverCommandsSince(Counts before) {
			return this.serverCommands.values().stream().mapToLong(Long::longValue).sum()
					- before.serverCommands.values().stream().mapToLong(Long::longValue).sum();
		}

		String serverCommandsByNameSince(Counts before) {
			Map<String, Long> delta = new TreeMap<>();
			this.serverCommands.forEach((name, calls) -> {
				long since = calls - before.serverCommands.getOrDefault(name, 0L);
				if (since > 0) {
					delta.put(name, since);
				}
			});
			return delta.toString();
		}

	}

	/** The lease counts of all replicas together. */
	record LeaseTotals(long sharedWaits, long bursts, long refills, long refillFailures, long returnedUnits) {

		static final LeaseTotals NONE = new LeaseTotals(0, 0, 0, 0, 0);

		LeaseTotals plus(LeasedBucketStore.LeaseStats stats) {
			return new LeaseTotals(this.sharedWaits + stats.sharedWaits(), this.bursts + stats.bursts(),
					this.refills + stats.refills(), this.refillFailures + stats.refillFailures(),
					this.returnedUnits + stats.returnedUnits());
		}

		LeaseTotals minus(LeaseTotals other) {
			return new LeaseTotals(this.sharedWaits - other.sharedWaits, this.bursts - other.bursts,
					this.refills - other.refills, this.refillFailures - other.refillFailures,
					this.returnedUnits - other.returnedUnits);
		}

	}

	/** One configuration's figures over the window. */
	record Row(Duration delay, Mode mode, Workload workload, long decisions, double commandsPerDecision,
			double clientCommandsPerDecision, double roundTripsPerDecision, long p50Nanos, long p99Nanos, long lateP99Nanos, long admitted,
			long replayAdmitted, long deviation, long excess, long fallbacks, long[] admittedPerSecond,
			long[] admittedByReplica) {

		static final String HEADER = """
				| One-way delay | Mode | Workload | Decisions/s | Redis commands / decision (INFO commandstats) \
				| Client commands / decision | Round trips / decision | P50 (ms) | P99 (ms) | Admitted | Exact replay admitted \
				| Throttling deviation | Excess over the replay | Fallbacks | Fault |
				|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|""";

		static Row of(Duration delay, Mode mode, Workload workload, Decisions all, Counts before, Counts after) {
			List<Long> latencies = new ArrayList<>();
			List<Long> lateness = new ArrayList<>();
			long admitted = 0;
			long[] perSecond = new long[(int) (WINDOW_NANOS / 1_000_000_000L)];
			long[] byReplica = new long[REPLICAS];
			for (int i = 0; i < all.size; i++) {
				if (all.inWindow(i)) {
					latencies.add(all.latencies[i]);
					lateness.add(all.lateness[i]);
					if (all.admitted[i]) {
						admitted++;
						perSecond[(int) ((all.sent[i] - WARM_UP_NANOS) / 1_000_000_000L)]++;
						byReplica[all.replicas[i]]++;
					}
				}
			}
			long decisions = latencies.size();
			Replay replay = replay(all);
			return new Row(delay, mode, workload, decisions,
					(double) after.serverCommandsSince(before) / Math.max(1, decisions),
					(double) (after.clientCommands() - before.clientCommands()) / Math.max(1, decisions),
					(double) (after.roundTrips() - before.roundTrips()) / Math.max(1, decisions),
					percentile(latencies, 0.50), percentile(latencies, 0.99), percentile(lateness, 0.99), admitted,
					replay.admitted(), replay.deviation(), replay.excess(), after.fallbacks() - before.fallbacks(), perSecond,
					byReplica);
		}

		private static long percentile(List<Long> values, double quantile) {
			if (values.isEmpty()) {
				return 0;
			}
			long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
			return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
		}

		String markdown() {
			double seconds = WINDOW_NANOS / 1e9;
			return String.format(Locale.ROOT,
					"| %d ms | %s | %s | %,.0f | %.4f | %.4f | %.4f | %.3f | %.3f | %s | %s | %.2f %% | %,d | %d | %s |",
					this.delay.toMillis(), this.mode.name().toLowerCase(Locale.ROOT), this.workload.label,
					this.decisions / seconds, this.commandsPerDecision, this.clientCommandsPerDecision,
					this.roundTripsPerDecision,
					this.p50Nanos / 1e6, this.p99Nanos / 1e6, admitted(this.admitted), admitted(this.replayAdmitted),
					100.0 * this.deviation / Math.max(1, this.decisions), this.excess, this.fallbacks,
					FAULT.name().toLowerCase(Locale.ROOT));
		}

		/** Hot key: the rate against the limit; 1,000 keys: the share of decisions. */
		private String admitted(long count) {
			if (this.workload == Workload.HOT_KEY) {
				double perSecond = count / (WINDOW_NANOS / 1e9);
				double limit = LIMITS.rps().doubleValue();
				return String.format(Locale.ROOT, "%,.0f/s (%+.1f %%)", perSecond, 100 * (perSecond - limit) / limit);
			}
			return String.format(Locale.ROOT, "%.2f %%", 100.0 * count / Math.max(1, this.decisions));
		}

		String details(Counts before, Counts after) {
			LeaseTotals leases = after.leases().minus(before.leases());
			return String.format(Locale.ROOT,
					"late P99 %.1f ms; pipelined: %d writes carrying %d commands, %d commands besides; admitted each "
							+ "second %s, by replica %s; commands %s; leases: waits %d, bursts %d, refills %d, "
							+ "failed %d, returned %.0f tokens",
					this.lateP99Nanos / 1e6, after.pipelineWrites() - before.pipelineWrites(),
					after.pipelineCommands() - before.pipelineCommands(),
					(after.clientCommands() - before.clientCommands())
							- (after.pipelineCommands() - before.pipelineCommands()), Arrays.toString(this.admittedPerSecond),
					Arrays.toString(this.admittedByReplica),
					after.serverCommandsByNameSince(before), leases.sharedWaits(), leases.bursts(), leases.refills(),
					leases.refillFailures(), (double) leases.returnedUnits() / BucketLimits.UNITS_PER_TOKEN);
		}

	}

	/** The server's per-command call counts, read on a connection of their own, not delayed. */
	static final class CommandStats implements AutoCloseable {

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> connection;

		CommandStats(String url) {
			this.client = RedisClient.create(url);
			this.connection = this.client.connect();
		}

		/** Every command's calls but INFO's, which only this class sends. */
		Map<String, Long> calls() {
			Map<String, Long> calls = new HashMap<>();
			for (String line : this.connection.sync().info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
					String name = line.substring("cmdstat_".length(), line.indexOf(':'));
					String value = line.substring(line.indexOf("calls=") + 6, line.indexOf(','));
					calls.put(name, Long.parseLong(value));
				}
			}
			return calls;
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

}
