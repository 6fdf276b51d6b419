package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.ratelimit.autoconfigure.testsupport.RedisProcess;
import io.ratelimit.autoconfigure.testsupport.RedisSentinelSetup;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BucketStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Global buckets behind Redis Sentinel, on a primary, a replica and three sentinels of this
 * class's own: the store contract through the sentinels, the auto-configuration reading
 * {@code spring.data.redis.sentinel.*} (with and without Spring Data Redis's connection
 * details), and the primary killed mid-run. Figures of the failover are printed.
 */
class RedisSentinelTest extends BucketStoreContract {

	/** 20 tokens, one more every 10 seconds: nothing refills while a test runs. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);

	private static final AtomicInteger stores = new AtomicInteger();

	private static RedisSentinelSetup sentinel;

	private final List<RedisBucketStore> opened = new ArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class))
		.withPropertyValues("ratelimit.key-secret=0123456789abcdef0123456789abcdef",
				"ratelimit.redis.cooldown=1s");

	@BeforeAll
	static void startSentinel() throws Exception {
		sentinel = RedisSentinelSetup.start();
	}

	@AfterAll
	static void stopSentinel() {
		if (sentinel != null) {
			sentinel.close();
		}
	}

	@AfterEach
	void closeStores() {
		this.opened.forEach(RedisBucketStore::close);
	}

	@Override
	protected BucketStore newStore(long maximumEntries) {
		RedisTarget target = RedisTarget.sentinel(RedisSentinelSetup.MASTER, nodes(), 0,
				new RedisTarget.Credentials(null, null), new RedisTarget.Credentials(null, null), false, null);
		RedisBucketStore store = new RedisBucketStore(RedisClients.connector(target, Duration.ofSeconds(2)),
				"ratelimit:" + stores.incrementAndGet() + ":", Duration.ofSeconds(2), maximumEntries, this.time);
		this.opened.add(store);
		return store;
	}

	@Test
	void runWhenSentinelPropertiesThenBucketsOnThePrimary() {
		this.runner.withPropertyValues(sentinelProperties()).run((context) -> {
			FailoverBucketStore store = context.getBean(RedisGlobalBuckets.class).failover();
			drain(store, new BucketKey(1, stores.incrementAndGet()));
			assertThat(store.fallbacks()).isZero();
			assertThat(sentinel.primary().cli("DBSIZE")).isNotEqualTo("0");
		});
	}


	/**
	 * The primary is killed while this replica of the application decides a key that has
	 * half its tokens left: until the sentinels promote the replica and the store
	 * reconnects, the failure mode ({@code local}) decides, admitting at most the limit of
	 * that key from this process's own bucket; then the new primary decides again, without a
	 * restart, from the bucket as it was replicated before the kill (its other half).
	 */
	@Test
	void tryConsumeWhenPrimaryKilledThenFailureModeDecidesUntilNewPrimaryResumes() {
		this.runner.withPropertyValues(sentinelProperties()).withPropertyValues("ratelimit.redis.failure-mode=local")
			.run((context) -> {
				FailoverBucketStore store = context.getBean(RedisGlobalBuckets.class).failover();
				BucketKey key = new BucketKey(3, stores.incrementAndGet());
				for (int i = 0; i < 10; i++) {
					assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
				}
				sentinel.awaitReplicated();
				RedisProcess primary = sentinel.primary();
				AtomicReference<Duration> promoted = new AtomicReference<>();

				DecisionsThroughSwitch.Result result = DecisionsThroughSwitch.run(store, key, LIMITS, () -> {
					long killed = System.nanoTime();
					primary.kill();
					sentinel.awaitPrimaryOtherThan(primary.port(), Duration.ofSeconds(15));
					promoted.set(Duration.ofNanos(System.nanoTime() - killed));
				}, Duration.ofSeconds(20));

				assertThat(result.firstFallback()).as("the failure mode decides").isNotNull();
				assertThat(result.resumed()).as("Redis decides again").isNotNull().isLessThan(Duration.ofSeconds(15));
				System.out.printf("Sentinel failover: primary killed; sentinels promoted the replica after %d ms; "
						+ "the failure mode (local) decided %d requests from %d ms on, admitting %d of the watched "
						+ "key (limit 20); Redis decided again %d ms after the kill (cooldown 1000 ms)%n",
						promoted.get().toMillis(), result.byFailureMode(), result.firstFallback().toMillis(),
						result.watchedAdmittedByFailureMode(), result.resumed().toMillis());
				assertThat(result.watchedAdmittedByFailureMode()).as("at most the limit, from this replica's own bucket")
					.isBetween(1, 20);
				assertThat(sentinel.primaryPort()).isNotEqualTo(primary.port());
				long fallbacks = store.fallbacks();
				// Less any the new primary admitted of the watched key during the run: the request
				// that finds Redis back may be the watched key's.
				assertThat(admitted(store, key, 20)).as("the half replicated before the kill")
					.isEqualTo(10 - result.watchedAdmittedByRedis());
				assertThat(store.fallbacks()).as("decided by the new primary").isEqualTo(fallbacks);
			});
	}

	private static int admitted(FailoverBucketStore store, BucketKey key, int requests) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			admitted += store.tryConsume(key, LIMITS, 1).consumed() ? 1 : 0;
		}
		return admitted;
	}

	private static void drain(FailoverBucketStore store, BucketKey key) {
		for (int i = 0; i < 20; i++) {
			assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
		}
		assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isFalse();
	}

	private static String[] sentinelProperties() {
		return new String[] { "spring.data.redis.sentinel.master=" + RedisSentinelSetup.MASTER,
				"spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelNodes()) };
	}

	private static List<DataRedisConnectionDetails.Node> nodes() {
		return sentinel.sentinelNodes().stream().map(RedisStores::node).toList();
	}

}
