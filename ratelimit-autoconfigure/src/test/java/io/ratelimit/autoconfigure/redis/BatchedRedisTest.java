package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.LeaseSizing;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batched global buckets on a Redis server of the test's own, three replicas in this JVM
 * (each its own connection, leases and background threads): the bound on admission, a
 * replica killed mid-run, an outage and the return of leases.
 */
class BatchedRedisTest {

	/** 200 a second, capacity 200: leases of at most 20 tokens. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("200"), BigDecimal.ONE, 1);

	private static final long TOKEN = BucketLimits.UNITS_PER_TOKEN;

	/** At most 1.5 leases of 20 tokens per replica are held back from the others. */
	private static final int HELD_BY_THREE = 90;

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private RedisServerProcess server;

	private final List<Replica> replicas = new ArrayList<>();

	@BeforeEach
	void start() throws Exception {
		this.server = RedisServerProcess.start();
		for (int i = 0; i < 3; i++) {
			this.replicas.add(new Replica(this.server.url()));
		}
	}

	@AfterEach
	void stop() throws Exception {
		this.replicas.forEach(Replica::kill);
		this.server.close();
	}

	@Test
	void tryConsumeWhenThreeReplicasFloodOneKeyThenWithinLeaseBoundAndFewRedisCalls() throws Exception {
		BucketKey key = new BucketKey(1, 1);
		Flood flood = flood(key, Duration.ofSeconds(3), null);

		long exact = 200 + Math.round(200 * flood.seconds());
		System.out.printf("[batched] 3 replicas, 200/s, %.2f s: admitted %d of %d, exact %d, Redis calls %d "
				+ "(%.4f per decision)%n", flood.seconds(), flood.admitted(), flood.decisions(), exact, redisCalls(),
				(double) redisCalls() / flood.decisions());
		// Never over (a token more for the clock's granularity), less by at most the leases.
		assertThat(flood.admitted()).isLessThanOrEqualTo(exact + 2).isGreaterThanOrEqualTo(exact - HELD_BY_THREE);
		assertThat((double) redisCalls() / flood.decisions()).isLessThan(0.05);
	}

	/**
	 * Clients each seen about once a second by each replica: every decision is taken at once,
	 * on credit, and the charges of many keys share each write to Redis.
	 */
	@Test
	void tryConsumeWhenThreeReplicasSeeManySparseKeysThenNoneWaitsAndChargesShareRoundTrips() throws Exception {
		// 20 tokens, a tenth of one refilled per second: the charges can be counted.
		BucketLimits slow = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);
		// A timeout no busy build host reaches: one failed call pauses credit for a second.
		this.replicas.forEach(Replica::kill);
		this.replicas.clear();
		for (int i = 0; i < 3; i++) {
			this.replicas.add(new Replica(this.server.url(), Duration.ofSeconds(2)));
		}
		int keys = 1000;
		long decisions = 0;
		for (int k = 0; k < keys; k++) {
			for (Replica replica : this.replicas) {
				assertThat(replica.leases.tryConsume(new BucketKey(9, k), slow, 1).consumed()).isTrue();
				decisions++;
			}
			TimeUnit.MICROSECONDS.sleep(1000);
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.replicas.stream().allMatch((replica) -> replica.leases.leaseStats().pendingCalls() == 0));

		long roundTrips = 0;
		for (Replica replica : this.replicas) {
			assertThat(replica.leases.leaseStats().sharedWaits()).as("no decision waited for Redis").isZero();
			assertThat(replica.leases.leaseStats().returnedUnits()).as("nothing leased to give back").isZero();
			roundTrips += replica.redis.pipelineStats().roundTrips();
		}
		System.out.printf("[batched] %d sparse keys, 3 replicas: %d decisions, %d background round trips "
				+ "(%.3f per decision)%n", keys, decisions, roundTrips, (double) roundTrips / decisions);
		// One write per flush interval (10 ms) at most, whatever the number of keys in it.
		assertThat((double) roundTrips / decisions).isLessThan(0.25);
		for (int k = 0; k < keys; k += 97) {
			long left = this.replicas.get(0).redis.lease(new BucketKey(9, k), slow, 20 * TOKEN).units();
			assertThat(left).as("charged by each replica").isGreaterThanOrEqualTo(17 * TOKEN).isLessThan(18 * TOKEN);
		}
	}

	@Test
	void tryConsumeWhenReplicaKilledMidRunThenLosesAtMostItsLease() throws Exception {
		BucketKey key = new BucketKey(2, 2);
		Flood flood = flood(key, Duration.ofSeconds(3), Duration.ofMillis(1500));

		long exact = 200 + Math.round(200 * flood.seconds());
		System.out.printf("[batched] replica killed at 1.5 s: admitted %d, exact %d, its lease lost: %d tokens%n",
				flood.admitted(), exact, flood.lost() / TOKEN);
		assertThat(flood.lost()).isLessThanOrEqualTo(30 * TOKEN);
		assertThat(flood.admitted()).isLessThanOrEqualTo(exact + 2)
			.isGreaterThanOrEqualTo(exact - HELD_BY_THREE - 30);
	}

	@Test
	void tryConsumeWhenRedisStopsThenFailureModeDecidesAndLeasesResumeWhenItReturns() throws Exception {
		Replica replica = this.replicas.get(0);
		FailoverBucketStore store = replica.failover(RedisFailureMode.LOCAL);
		BucketKey key = new BucketKey(3, 3);
		assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();

		this.server.stop();
		int admitted = 0;
		for (int i = 0; i < 300; i++) {
			admitted += store.tryConsume(key, LIMITS, 1).consumed() ? 1 : 0;
			Thread.sleep(1);
		}
		// The lease, then local buckets at the same policy: never an exception.
		assertThat(admitted).isPositive();
		assertThat(store.isCoolingDown()).isTrue();
		assertThat(store.fallbacks()).isPositive();
		assertThat(replica.leases.leaseStats().refillFailures()).isPositive();

		this.server.resume();
		Instant back = Instant.now();
		BucketKey fresh = new BucketKey(4, 4);
		while (store.isCoolingDown() && Duration.between(back, Instant.now()).toSeconds() < 10) {
			store.tryConsume(fresh, LIMITS, 1);
			Thread.sleep(20);
		}
		assertThat(store.isCoolingDown()).isFalse();
		long refillsBefore = replica.leases.leaseStats().refills();
		assertThat(store.tryConsume(new BucketKey(5, 5), LIMITS, 1).consumed()).isTrue();
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(replica.leases.leaseStats().refills()).as("leased from Redis again")
				.isGreaterThan(refillsBefore));
		System.out.printf("[batched] outage: %d of 300 admitted while Redis was down, leases again %d ms after it "
				+ "returned%n", admitted, Duration.between(back, Instant.now()).toMillis());
	}

	@Test
	void closeWhenLeaseHeldThenTokensBackInRedis() {
		Replica replica = this.replicas.get(0);
		BucketKey key = new BucketKey(6, 6);
		replica.leases.tryConsume(key, LIMITS, 1);
		long leased = replica.leases.lease(key).leasedUnits();
		assertThat(leased).isPositive();

		replica.leases.close();

		long remaining = replica.redis.lease(key, LIMITS, 1).remainingUnits() + 1;
		// Everything but the request's token (the bucket refilled meanwhile, up to capacity).
		assertThat(remaining).isGreaterThanOrEqualTo(200 * TOKEN - TOKEN);
	}

	/**
	 * Each replica decides as fast as one thread can for the duration (about 1,000 a second
	 * each, far over the limit); one replica may be killed part way.
	 */
	private Flood flood(BucketKey key, Duration duration, Duration killAfter) throws Exception {
		ExecutorService senders = Executors.newFixedThreadPool(this.replicas.size());
		long start = System.nanoTime();
		long end = start + duration.toNanos();
		try {
			List<Future<long[]>> results = new ArrayList<>();
			for (int i = 0; i < this.replicas.size(); i++) {
				Replica replica = this.replicas.get(i);
				long stop = (killAfter != null && i == 0) ? start + killAfter.toNanos() : end;
				results.add(senders.submit(() -> {
					long decisions = 0;
					long admitted = 0;
					while (System.nanoTime() < stop) {
						admitted += replica.leases.tryConsume(key, LIMITS, 1).consumed() ? 1 : 0;
						decisions++;
						TimeUnit.MICROSECONDS.sleep(500);
					}
					long lost = 0;
					if (killAfter != null && replica == this.replicas.get(0)) {
						lost = replica.leases.lease(key).leasedUnits();
						replica.kill();
					}
					return new long[] { decisions, admitted, lost };
				}));
			}
			long decisions = 0;
			long admitted = 0;
			long lost = 0;
			for (Future<long[]> result : results) {
				long[] counts = result.get();
				decisions += counts[0];
				admitted += counts[1];
				lost += counts[2];
			}
			return new Flood(decisions, admitted, lost, (System.nanoTime() - start) / 1e9);
		}
		finally {
			senders.shutdownNow();
		}
	}

	private long redisCalls() {
		return this.replicas.stream()
			.mapToLong((replica) -> replica.leases.leaseStats().sharedWaits() + replica.leases.leaseStats().refills())
			.sum();
	}

	record Flood(long decisions, long admitted, long lost, double seconds) {
	}

	/** One replica: its own connection, leases and background threads. */
	private static final class Replica {

		private final RedisBucketStore redis;

		private final ExecutorService background = Executors.newFixedThreadPool(2);

		private final LeasedBucketStore leases;

		private boolean killed;

		Replica(String url) {
			this(url, TIMEOUT);
		}

		Replica(String url, Duration timeout) {
			this.redis = RedisStores.connect(url, "ratelimit:", timeout);
			this.leases = new LeasedBucketStore(this.redis, LeaseSizing.defaults(), Duration.ofSeconds(1), 10_000,
					this.background, TimeSource.system());
		}

		FailoverBucketStore failover(RedisFailureMode mode) {
			return new FailoverBucketStore(this.leases, mode, LocalBucketStore.create(10_000), 3,
					Duration.ofSeconds(1), TimeSource.system());
		}

		/** Stops as a killed process does: nothing given back, connection cut. */
		synchronized void kill() {
			if (!this.killed) {
				this.killed = true;
				this.background.shutdownNow();
				this.redis.close();
			}
		}

	}

}
