package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.bucket.LocalBucketStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis stops (a server of this test's own) and comes back: each failure mode decides as
 * configured, once the cooldown engages a decision costs no Redis timeout, and Redis
 * decides again within seconds of its return. Timing figures are printed; the assertions
 * on them are loose.
 */
class RedisOutageTest {

	/** 20 tokens, one more every 10 seconds: nothing refills while a test runs. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);

	private static final Duration TIMEOUT = Duration.ofMillis(100);

	private static final Duration COOLDOWN = Duration.ofSeconds(1);

	private static final AtomicLong keys = new AtomicLong();

	private RedisServerProcess server;

	private RedisBucketStore redis;

	@BeforeEach
	void start() throws Exception {
		this.server = RedisServerProcess.start();
		this.redis = RedisStores.connect(this.server.url(), "ratelimit:", TIMEOUT);
	}

	@AfterEach
	void stop() throws Exception {
		this.redis.close();
		this.server.close();
	}

	@Test
	void tryConsumeWhenRedisDownAndModeLocalThenLocalBucketsAtSamePolicy() throws Exception {
		FailoverBucketStore store = failover(RedisFailureMode.LOCAL);
		BucketKey key = key();
		drain(store, key);
		this.server.stop();
		outage(store);

		BucketKey other = key();
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			admitted += store.tryConsume(other, LIMITS, 1).consumed() ? 1 : 0;
		}
		assertThat(admitted).isEqualTo(20);
		assertThat(store.isCoolingDown()).isTrue();
		assertThat(store.fallbacks()).isGreaterThanOrEqualTo(25);
	}

	@Test
	void tryConsumeWhenRedisDownAndModeOpenThenAdmitsAll() throws Exception {
		FailoverBucketStore store = failover(RedisFailureMode.OPEN);
		BucketKey key = key();
		drain(store, key);
		this.server.stop();
		outage(store);

		for (int i = 0; i < 50; i++) {
			assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
		}
	}

	@Test
	void tryConsumeWhenRedisDownAndModeClosedThenRefusesWithRetryAfter() throws Exception {
		FailoverBucketStore store = failover(RedisFailureMode.CLOSED);
		this.server.stop();
		outage(store);

		Consumption refused = store.tryConsume(key(), LIMITS, 1);
		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
	}

	/**
	 * The median decision with Redis up, against the median once the cooldown has engaged,
	 * and how soon after Redis returns its buckets decide again.
	 */
	@Test
	void tryConsumeWhenCooldownEngagedThenNoTimeoutAddedAndRecoversWhenRedisReturns() throws Exception {
		FailoverBucketStore store = failover(RedisFailureMode.LOCAL);
		BucketLimits roomy = BucketLimits.of(BigDecimal.valueOf(100_000), BigDecimal.ONE, 1);
		BucketKey key = key();
		long up = medianNanos(() -> store.tryConsume(key, roomy, 1));
		this.server.stop();
		outage(store);
		long failures = store.failures();
		long down = medianNanos(() -> store.tryConsume(key, roomy, 1));
		assertThat(store.failures()).as("no Redis call during the cooldown").isEqualTo(failures);
		System.out.printf("Median decision: Redis up %d us, Redis down after the cooldown engaged %d us%n",
				up / 1000, down / 1000);
		assertThat(Duration.ofNanos(down)).isLessThan(Duration.ofMillis(1));

		this.server.resume();
		Instant back = Instant.now();
		BucketKey fresh = key();
		while (store.isCoolingDown() && Duration.between(back, Instant.now()).toSeconds() < 15) {
			store.tryConsume(fresh, LIMITS, 1);
			Thread.sleep(20);
		}
		Duration recovery = Duration.between(back, Instant.now());
		System.out.printf("Redis decided again %d ms after it returned (cooldown %d ms)%n", recovery.toMillis(),
				COOLDOWN.toMillis());
		assertThat(store.isCoolingDown()).isFalse();
		assertThat(recovery).isLessThan(Duration.ofSeconds(5));
		// Enforced in Redis again: a drained bucket refuses, and its key is in Redis.
		BucketKey enforced = key();
		drain(store, enforced);
		assertThat(store.tryConsume(enforced, LIMITS, 1).consumed()).isFalse();
		assertThat(this.redis.stats().entries()).isPositive();
		assertThat(store.isCoolingDown()).isFalse();
	}

	private FailoverBucketStore failover(RedisFailureMode mode) {
		return new FailoverBucketStore(this.redis, mode, LocalBucketStore.create(10_000), 3, COOLDOWN,
				TimeSource.system());
	}

	/** Decides until the cooldown engages, as the first requests of an outage do. */
	private static void outage(FailoverBucketStore store) {
		BucketKey key = key();
		for (int i = 0; i < 10 && !store.isCoolingDown(); i++) {
			store.tryConsume(key, LIMITS, 1);
		}
		assertThat(store.isCoolingDown()).isTrue();
	}

	private static void drain(FailoverBucketStore store, BucketKey key) {
		for (int i = 0; i < 20; i++) {
			assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
		}
		assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isFalse();
	}

	private static BucketKey key() {
		long n = keys.incrementAndGet();
		return new BucketKey(n, System.nanoTime());
	}

	private static long medianNanos(Runnable decision) {
		for (int i = 0; i < 200; i++) {
			decision.run(); // warm up
		}
		long[] samples = new long[501];
		for (int i = 0; i < samples.length; i++) {
			long started = System.nanoTime();
			decision.run();
			samples[i] = System.nanoTime() - started;
		}
		Arrays.sort(samples);
		return samples[samples.length / 2];
	}

}
