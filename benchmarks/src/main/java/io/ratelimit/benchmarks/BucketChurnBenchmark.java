package io.ratelimit.benchmarks;

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
 * client), over the default local bucket store of 100,000 buckets.
 * <ul>
 * <li>{@code steadyClients}: {@value #STEADY_CLIENTS} clients in turn, each with a warm
 * bucket: the steady state.</li>
 * <li>{@code steadyFullStore}: {@value #FULL_STORE_CLIENTS} clients in turn, each with a
 * warm bucket, in a store as full as the churn's: the steady state of a busy store, whose
 * buckets are mostly out of the CPU's caches, as the churn's are.</li>
 * <li>{@code churningClients}: a new address on every request, as many as the run takes
 * (millions), so every decision creates a bucket and the full store evicts one: an
 * attacker inventing addresses.</li>
 * </ul>
 * All three build their request, address text included, in the call, and every request is
 * admitted, so what sets churn apart is the bucket's creation and eviction. The target is a
 * P99 of {@code churningClients} within twice that of {@code steadyClients} in the same run;
 * {@code steadyFullStore} tells how much of the difference is the memory traffic of a full
 * store rather than creating and evicting buckets. The memory half of A4 (heap per bucket)
 * is measured by {@code BucketExplosionTest}.
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
@Fork(3)
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
			this.clients.checkAdmitted(this.population);
		}

		RateLimitRequest next() {
			return this.clients.request(this.clients.decisions++ % this.population);
		}

		@TearDown
		public void checkNothingEvicted() {
			BucketStoreStats stats = this.clients.limiter.buckets().stats();
			Checks.require(stats.entries() == this.population && stats.evictions() == 0,
					"one warm bucket per client, none evicted");
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

	@State(Scope.Thread)
	public static class Churn {

		final Clients clients = new Clients();

		@Setup
		public void setUp() {
			this.clients.checkAdmitted(Integer.MAX_VALUE);
		}

		RateLimitRequest next() {
			return this.clients.request(this.clients.decisions++);
		}

		@TearDown
		public void checkEveryDecisionEvicts() {
			BucketStoreStats stats = this.clients.limiter.buckets().stats();
			Checks.require(stats.entries() <= MAXIMUM_ENTRIES
					&& stats.evictions() >= this.clients.decisions - MAXIMUM_ENTRIES,
					"a full store that evicts a bucket for every new address");
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
			this.limiter = Limiters.limiter((request) -> endpoint, routes);
		}

		/**
		 * Sends as many requests as the store holds, from clients {@code 0} to
		 * {@code clients - 1} in turn, and checks that all are admitted.
		 */
		void checkAdmitted(int clients) {
			for (int i = 0; i < MAXIMUM_ENTRIES; i++) {
				Decision decision = this.limiter.evaluate(request(this.decisions++ % clients));
				Checks.require(decision.outcome() == Decision.Outcome.ALLOWED, "every request admitted");
			}
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

}
