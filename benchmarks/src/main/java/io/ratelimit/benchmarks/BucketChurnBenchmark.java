package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.BucketStoreStats;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decision latency under bucket churn, the latency half of A4 in {@code docs/security.md}:
 * {@link RateLimiter#evaluate} with network identity on one endpoint ({@code GET} of the
 * first route of {@link ApiTemplates}, {@value Limiters#RPS} requests per second per
 * client, burst factor 100 so that idle buckets are kept longer than a fork runs), over the
 * default local bucket store of 100,000 buckets.
 * <ul>
 * <li>{@code steadyClients}: {@value #STEADY_CLIENTS} clients in turn, each with a warm
 * bucket: the steady state.</li>
 * <li>{@code steadyFullStore}: {@value #FULL_STORE_CLIENTS} clients in turn, each with a
 * warm bucket: the steady state of a busy store, whose buckets are mostly out of the CPU's
 * caches.</li>
 * <li>{@code churningClients}: a new address on every request, as many as the run takes
 * (millions), beside the {@value #FULL_STORE_CLIENTS} warm buckets of a busy store: an
 * attacker inventing addresses. Each request is an address's first, which the store's
 * doorkeeper answers without creating a bucket, but for the few whose slot holds another
 * address's request of the last 0.1 ms (the refill of one request).</li>
 * <li>{@code churningClientsTwice}: the same, but every new address makes two requests in
 * a row, so that every second request creates a bucket and the full store evicts one: an
 * attacker who gets past the doorkeeper at the price of twice the requests.</li>
 * </ul>
 * All of them build their request, address text included, in the call, and every request
 * is admitted, so what sets churn apart is the store's work for new addresses. The target
 * is a P99 of {@code churningClients} within twice the steady state in the same run, which
 * two benchmarks give: {@code steadyClients}, a small population that stays in the CPU's
 * caches, and {@code steadyFullStore}, the same store without the churn, which tells how
 * much of a difference is the memory traffic of a full store rather than the churn. The
 * memory half of A4 (heap per bucket) is measured by {@code BucketExplosionTest}.
 * <p>
 * Each fork has a fixed heap of 1 GiB, as a server's heap is sized. With the JVM's default
 * heap, the collector grows the heap to nearly 2 GiB while the fixture warms 90,000
 * buckets, and the measurement then runs without a collection in heap the process has
 * never touched: every 4 KiB the churn allocates is a page fault, which on a virtual
 * machine costs microseconds. That gave P99s of 12 to 62 µs on a host where the same churn
 * in a heap used once before costs 7 to 10 µs: the JVM's first seconds, not the store.
 * A {@code -jvmArgsAppend} on JMH's command line replaces these options, so repeat them
 * there.
 * <p>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar BucketChurnBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class BucketChurnBenchmark {

	static final int STEADY_CLIENTS = 1_000;

	static final int MAXIMUM_ENTRIES = 100_000;

	/** Nine in ten of the store's entries: all stay, however Caffeine's admission scores them. */
	static final int FULL_STORE_CLIENTS = 90_000;

	/**
	 * A fixed population of clients in turn, each with a warm bucket.
	 */
	public abstract static class WarmClients {

		final Clients clients = new Clients();

		private final int population;

		WarmClients(int population) {
			this.population = population;
		}

		@Setup
		public void setUp() {
			this.clients.warm(this.population);
		}

		RateLimitRequest next() {
			return this.clients.request(this.clients.decisions++ % this.population);
		}

		@TearDown
		public void checkNothingEvicted() {
			BucketStoreStats stats = this.clients.limiter.buckets().stats();
			Checks.require(stats.entries() == this.population && stats.evictions() == 0,
					"one warm bucket per client, none evicted, but the store had " + stats);
		}

	}

	@State(Scope.Thread)
	public static class Steady extends WarmClients {

		public Steady() {
			super(STEADY_CLIENTS);
		}

	}

	@State(Scope.Thread)
	public static class FullStore extends WarmClients {

		public FullStore() {
			super(FULL_STORE_CLIENTS);
		}

	}

	/**
	 * New addresses beside a busy store's warm buckets, each making
	 * {@link #requestsPerAddress} requests in a row.
	 */
	public abstract static class NewAddresses {

		final Clients clients = new Clients();

		private final int requestsPerAddress;

		long requests;

		NewAddresses(int requestsPerAddress) {
			this.requestsPerAddress = requestsPerAddress;
		}

		@Setup
		public void setUp() {
			this.clients.warm(FULL_STORE_CLIENTS);
		}

		RateLimitRequest next() {
			return this.clients.request(FULL_STORE_CLIENTS + this.requests++ / this.requestsPerAddress);
		}

	}

	@State(Scope.Thread)
	public static class Churn extends NewAddresses {

		public Churn() {
			super(1);
		}

		@TearDown
		public void checkFewBucketsCreated() {
			BucketStoreStats stats = this.clients.limiter.buckets().stats();
			// A new address whose slot holds the first request of another, made within the
			// refill of one request (0.1 ms), gets its bucket at once.
			long created = stats.entries() + stats.evictions() - FULL_STORE_CLIENTS;
			Checks.require(created >= 0 && created <= this.requests / 100,
					"one-off addresses to create a bucket for one request in a hundred at most, but the store had "
							+ stats + " after " + this.requests + " requests");
		}

	}

	@State(Scope.Thread)
	public static class ChurnTwice extends NewAddresses {

		public ChurnTwice() {
			super(2);
		}

		@TearDown
		public void checkEverySecondRequestEvicts() {
			BucketStoreStats stats = this.clients.limiter.buckets().stats();
			Checks.require(stats.entries() <= MAXIMUM_ENTRIES
					&& stats.evictions() >= this.requests / 2 * 99 / 100 - (MAXIMUM_ENTRIES - FULL_STORE_CLIENTS),
					"a full store that evicts a bucket for (nearly) every second request, but it had " + stats
							+ " after " + this.requests + " requests");
		}

	}

	/**
	 * A limiter on one endpoint, and the requests of its clients.
	 */
	static final class Clients {

		final RateLimiter limiter;

		private final ApiTemplates.Route route;

		long decisions;

		Clients() {
			List<ApiTemplates.Route> routes = ApiTemplates.of(5);
			this.route = routes.get(0);
			EndpointTemplate endpoint = this.route.template();
			// Buckets kept for 102 s when idle: the warm ones outlive a fork while only new
			// addresses are sent.
			this.limiter = Limiters.limiter((request) -> endpoint, routes, BigDecimal.valueOf(100));
		}

		/**
		 * Gives clients {@code 0} to {@code population - 1} warm buckets (see
		 * {@link Limiters#warmBucket}), then sends as many requests as the store holds, to
		 * them in turn. Checks that all are admitted.
		 */
		void warm(int population) {
			for (int client = 0; client < population; client++) {
				Checks.require(Limiters.warmBucket(this.limiter, request(client)).outcome() == Decision.Outcome.ALLOWED,
						"every request admitted");
			}
			for (int i = 0; i < MAXIMUM_ENTRIES; i++) {
				admit(request(this.decisions++ % population));
			}
		}

		private void admit(RateLimitRequest request) {
			Checks.require(this.limiter.evaluate(request).outcome() == Decision.Outcome.ALLOWED,
					"every request admitted");
		}

		/** A request from client {@code i}; clients have distinct addresses from 11.0.0.1 onwards. */
		RateLimitRequest request(long i) {
			long n = i + 1;
			String address = (11 + (n >>> 24)) + "." + ((n >>> 16) & 0xff) + "." + ((n >>> 8) & 0xff) + "."
					+ (n & 0xff);
			return new SimpleRequest(this.route.method(), this.route.samplePath(), address);
		}

	}

	@Benchmark
	public Decision steadyClients(Steady state) {
		return state.clients.limiter.evaluate(state.next());
	}

	@Benchmark
	public Decision steadyFullStore(FullStore state) {
		return state.clients.limiter.evaluate(state.next());
	}

	@Benchmark
	public Decision churningClients(Churn state) {
		return state.clients.limiter.evaluate(state.next());
	}

	@Benchmark
	public Decision churningClientsTwice(ChurnTwice state) {
		return state.clients.limiter.evaluate(state.next());
	}

}
