package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.bucket.LocalBucketStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Bucket consume: {@link LocalBucketStore#tryConsume} of one token, on a store of the
 * default size (100,000 buckets), alone and with two threads consuming at once from the
 * same store.
 * <ul>
 * <li>{@code hotKey}, {@code hotKeyContended}: every call on one bucket; contended, the
 * two threads race on its state.</li>
 * <li>{@code zipfKeys}, {@code zipfKeysContended}: keys drawn from a Zipf distribution
 * (exponent {@value #ZIPF_EXPONENT}, as YCSB uses) over {@value #KEYS} keys, so a few
 * clients are hot and most are seen rarely; each thread reads its own stretch of one
 * precomputed sequence. Buckets are created on first use, some of them during the
 * measurement, as in production. Each call builds its key from the two halves stored in
 * the sequence, read in order: the store gets a key object that has just been made, as the
 * limiter hands it one it has just computed, and the harness adds no cache miss of its own
 * (fetching a shared key object at random from 100,000 would).</li>
 * </ul>
 * The limits admit every call: 10<sup>6</sup> tokens per second, the highest rate a policy
 * may have, and a capacity of 10<sup>12</sup> tokens that no run can drain. So this
 * measures the admitting path, which updates the bucket state.
 * <p>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar BucketConsumeBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
public class BucketConsumeBenchmark {

	static final int KEYS = 100_000;

	static final double ZIPF_EXPONENT = 0.99;

	private static final int SEQUENCE = 1 << 20;

	private static final int MASK = SEQUENCE - 1;

	@State(Scope.Benchmark)
	public static class Store {

		LocalBucketStore buckets;

		BucketLimits limits;

		BucketKey hot;

		final BucketKey[] keys = new BucketKey[KEYS];

		// The halves of the keys in draw order: key i is (sequence[2i], sequence[2i + 1]).
		final long[] sequence = new long[2 * SEQUENCE];

		@Setup
		public void setUp() {
			this.buckets = LocalBucketStore.create(100_000);
			this.limits = BucketLimits.of(BigDecimal.valueOf(1_000_000), BigDecimal.valueOf(1_000_000), 1);
			SplittableRandom random = new SplittableRandom(42);
			for (int i = 0; i < KEYS; i++) {
				this.keys[i] = new BucketKey(random.nextLong(), random.nextLong());
			}
			this.hot = this.keys[0];
			int[] ranks = new int[SEQUENCE];
			fillZipf(ranks, random);
			for (int i = 0; i < SEQUENCE; i++) {
				BucketKey key = this.keys[ranks[i]];
				this.sequence[2 * i] = key.high();
				this.sequence[2 * i + 1] = key.low();
			}
			Checks.require(this.buckets.tryConsume(this.hot, this.limits, 1).consumed(), "an admitted consume");
		}

		/**
		 * Draws ranks by inverting the cumulative distribution, {@code P(rank k) ~ 1 / k^s}.
		 */
		private static void fillZipf(int[] sequence, SplittableRandom random) {
			double[] cumulative = new double[KEYS];
			double sum = 0;
			for (int k = 0; k < KEYS; k++) {
				sum += 1 / Math.pow(k + 1, ZIPF_EXPONENT);
				cumulative[k] = sum;
			}
			for (int i = 0; i < sequence.length; i++) {
				int rank = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
				sequence[i] = Math.min((rank >= 0) ? rank : -rank - 1, KEYS - 1);
			}
		}

	}

	@State(Scope.Thread)
	public static class Cursor {

		int next;

		@Setup
		public void setUp() {
			// Threads start far apart in the sequence, so they do not replay the same keys in step.
			this.next = new SplittableRandom().nextInt(SEQUENCE);
		}

		BucketKey nextKey(Store store) {
			int i = (this.next++ & MASK) << 1;
			return new BucketKey(store.sequence[i], store.sequence[i + 1]);
		}

	}

	@Benchmark
	public Consumption hotKey(Store store) {
		return store.buckets.tryConsume(store.hot, store.limits, 1);
	}

	@Benchmark
	public Consumption zipfKeys(Store store, Cursor cursor) {
		return store.buckets.tryConsume(cursor.nextKey(store), store.limits, 1);
	}

	@Benchmark
	@Threads(2)
	public Consumption hotKeyContended(Store store) {
		return store.buckets.tryConsume(store.hot, store.limits, 1);
	}

	@Benchmark
	@Threads(2)
	public Consumption zipfKeysContended(Store store, Cursor cursor) {
		return store.buckets.tryConsume(cursor.nextKey(store), store.limits, 1);
	}

}
