package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.ratelimit.autoconfigure.testsupport.RedisClusterSetup;
import io.ratelimit.autoconfigure.testsupport.RedisProcess;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BucketStoreContract;
import io.ratelimit.core.concurrency.Permit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Global buckets in a Redis Cluster of three primaries of this class's own: the store
 * contract through the cluster client, the auto-configuration reading
 * {@code spring.data.redis.cluster.nodes} (with and without Spring Data Redis's connection
 * details), buckets spread over every node, and a node restarted mid-run. Figures of the
 * restart are printed.
 */
class RedisClusterTest extends BucketStoreContract {

	/** 20 tokens, one more every 10 seconds: nothing refills while a test runs. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);

	private static final AtomicInteger stores = new AtomicInteger();

	private static RedisClusterSetup cluster;

	private final List<RedisBucketStore> opened = new ArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class))
		.withPropertyValues("ratelimit.key-secret=0123456789abcdef0123456789abcdef",
				"ratelimit.redis.cooldown=1s");

	private static final String PASSWORD = "limiter-secret";

	@BeforeAll
	static void startCluster() throws Exception {
		List<String> limiterUser = new ArrayList<>(List.of("--user", "ratelimit", "reset", "on", ">" + PASSWORD));
		limiterUser.addAll(RedisAclTest.CLUSTER_RULES);
		cluster = RedisClusterSetup.start(limiterUser.toArray(String[]::new));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@AfterEach
	void closeStores() {
		this.opened.forEach(RedisBucketStore::close);
	}

	@Override
	protected BucketStore newStore(long maximumEntries) {
		RedisTarget target = RedisTarget.cluster(cluster.nodes().stream().map(RedisStores::node).toList(),
				new RedisTarget.Credentials(null, null), false, null, null);
		RedisBucketStore store = new RedisBucketStore(RedisClients.connector(target, Duration.ofSeconds(2)),
				"ratelimit:" + stores.incrementAndGet() + ":", Duration.ofSeconds(2), maximumEntries, this.time);
		this.opened.add(store);
		return store;
	}

	@Test
	void runWhenClusterNodesThenBucketsSpreadOverEveryNode() {
		this.runner.withPropertyValues(clusterProperties()).run((context) -> {
			RedisGlobalBuckets buckets = context.getBean(RedisGlobalBuckets.class);
			Set<Integer> ports = new HashSet<>();
			for (int i = 0; i < 30; i++) {
				BucketKey key = new BucketKey(i, stores.incrementAndGet());
				assertThat(buckets.failover().tryConsume(key, LIMITS, 1).consumed()).isTrue();
				ports.add(cluster.nodeOf(buckets.redis().redisKey(key)).port());
			}
			assertThat(buckets.failover().fallbacks()).isZero();
			assertThat(ports).hasSize(3);
			for (RedisProcess node : cluster.processes()) {
				assertThat(node.cli("DBSIZE")).isNotEqualTo("0");
			}
		});
	}

	/**
	 * Batched cold keys over every node: each key's credit call is one key's script, sent on
	 * the pipelined cluster connection, which writes each node's commands to that node.
	 */
	@Test
	void runWhenBatchedColdKeysOnEveryNodeThenChargedThroughThePipelinedConnection() {
		this.runner.withPropertyValues(clusterProperties())
			.withPropertyValues("spring.data.redis.username=ratelimit", "spring.data.redis.password=" + PASSWORD)
			.run((context) -> {
				RedisGlobalBuckets buckets = context.getBean(RedisGlobalBuckets.class);
				List<BucketKey> keys = new ArrayList<>();
				Set<Integer> ports = new HashSet<>();
				for (int i = 0; i < 60; i++) {
					BucketKey key = new BucketKey(i, stores.incrementAndGet());
					keys.add(key);
					ports.add(cluster.nodeOf(buckets.redis().redisKey(key)).port());
					assertThat(buckets.batchedFailover().tryConsume(key, LIMITS, 1).consumed()).isTrue();
				}
				assertThat(ports).hasSize(3);
				assertThat(buckets.leases().leaseStats().sharedWaits()).as("decided on credit").isZero();
				await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> buckets.leases().leaseStats().refills() == keys.size()
							&& buckets.leases().leaseStats().pendingCalls() == 0);
				assertThat(buckets.leases().leaseStats().refillFailures()).isZero();
				// Each key's bucket (20 tokens, a tenth of one refilled per second) was charged one.
				for (BucketKey key : keys) {
					long left = buckets.redis().lease(key, LIMITS, 20 * BucketLimits.UNITS_PER_TOKEN).units();
					assertThat(left).isLessThan(20 * BucketLimits.UNITS_PER_TOKEN)
						.isGreaterThanOrEqualTo(19 * BucketLimits.UNITS_PER_TOKEN);
				}
				assertThat(buckets.redis().pipelineStats().roundTrips()).isPositive()
					.isLessThan(buckets.redis().pipelineStats().commands());
				for (RedisProcess node : cluster.processes()) {
					assertThat(node.cli("ACL", "LOG")).as("nothing refused on %s", node.port()).isEmpty();
				}
			});
	}

	@Test
	void runWhenLimiterAclUserOnEveryNodeThenBucketsWorkThroughIt() {
		this.runner.withPropertyValues(clusterProperties())
			.withPropertyValues("spring.data.redis.username=ratelimit", "spring.data.redis.password=" + PASSWORD)
			.run((context) -> {
				RedisGlobalBuckets buckets = context.getBean(RedisGlobalBuckets.class);
				for (int i = 0; i < 30; i++) {
					BucketKey key = new BucketKey(i, stores.incrementAndGet());
					assertThat(buckets.failover().tryConsume(key, LIMITS, 1).consumed()).isTrue();
					buckets.failover().refund(key, LIMITS, 1);
				}
				assertThat(buckets.failover().failures()).isZero();
				for (RedisProcess node : cluster.processes()) {
					assertThat(node.cli("ACL", "LOG")).as("nothing refused on %s", node.port()).isEmpty();
				}
			});
	}

	@Test
	void runWhenLimiterAclUserOnEveryNodeThenInFlightPermitsWorkThroughIt() {
		this.runner.withPropertyValues(clusterProperties())
			.withPropertyValues("spring.data.redis.username=ratelimit", "spring.data.redis.password=" + PASSWORD)
			.run((context) -> {
				RedisGlobalPermits permits = context.getBean(RedisGlobalPermits.class);
				List<Permit> taken = new ArrayList<>();
				Set<Integer> ports = new HashSet<>();
				for (int i = 0; i < 30; i++) {
					BucketKey key = new BucketKey(i, stores.incrementAndGet());
					ports.add(cluster.nodeOf(permits.redis().redisKey(key)).port());
					taken.add(permits.failover().tryAcquire(key, 1));
					Permit second = permits.failover().tryAcquire(key, 1);
					assertThat(permits.failover().failures()).as("Redis failed a permit").isZero();
					assertThat(second).as("none left").isNull();
				}
				assertThat(ports).hasSize(3);
				assertThat(taken).doesNotContainNull();
				permits.redis().renewAll();
				taken.forEach(Permit::release);
				assertThat(permits.failover().failures()).isZero();
				assertThat(permits.redis().lostPermits()).isZero();
				for (RedisProcess node : cluster.processes()) {
					assertThat(node.cli("ACL", "LOG")).as("nothing refused on %s", node.port()).isEmpty();
					assertThat(node.cli("KEYS", "ratelimit:in-flight:*")).as("every permit given back").isEmpty();
				}
			});
	}


	/**
	 * The cluster client opens a node's connection on the first command routed to that node,
	 * and that command waits for the connect and the handshake within its own timeout: on a
	 * busy host the first requests on each node fell to the failure mode. Every primary is
	 * connected by the time the context has started, before any request.
	 */
	@Test
	void runWhenStartedThenEveryPrimaryIsConnectedBeforeTheFirstRequest() {
		// A timeout a slow host cannot overrun: the connections must be open when startup ends.
		this.runner.withPropertyValues(clusterProperties())
			.withPropertyValues("spring.data.redis.username=ratelimit", "spring.data.redis.password=" + PASSWORD,
					"ratelimit.redis.timeout=2s")
			.run((context) -> {
				RedisGlobalPermits permits = context.getBean(RedisGlobalPermits.class);
				Map<Integer, Long> connectionsAtStart = connectionsReceived();
				List<BucketKey> keys = new ArrayList<>();
				for (int i = 0; i < 30; i++) {
					BucketKey key = new BucketKey(i, stores.incrementAndGet());
					keys.add(key);
					Permit permit = permits.failover().tryAcquire(key, 1);
					assertThat(permits.failover().failures()).as("Redis failed a permit").isZero();
					assertThat(permit).isNotNull();
					permit.release();
				}
				// The one connection each node accepted meanwhile is the first reading's redis-cli.
				Map<Integer, Long> expected = new TreeMap<>(connectionsAtStart);
				expected.replaceAll((port, count) -> count + 1);
				assertThat(connectionsReceived()).as("connections each node accepted").isEqualTo(expected);
				assertThat(keys.stream().map((key) -> cluster.nodeOf(permits.redis().redisKey(key)).port()).distinct())
					.as("nodes the permits were on")
					.hasSize(3);
			});
	}

	/**
	 * Each node's count of connections accepted since it started, by port, this reading's
	 * own {@code redis-cli} included.
	 */
	private static Map<Integer, Long> connectionsReceived() {
		Map<Integer, Long> received = new TreeMap<>();
		for (RedisProcess node : cluster.processes()) {
			String stats = node.cli("INFO", "stats");
			long count = stats.lines()
				.filter((line) -> line.startsWith("total_connections_received:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElseThrow();
			received.put(node.port(), count);
		}
		return received;
	}

	/**
	 * The node that holds a key is killed and started again while this replica of the
	 * application decides that key: while it is gone the failure mode ({@code closed})
	 * refuses, then the cluster decides again without a restart of the application, from
	 * the bucket the node kept in its append-only file.
	 */
	@Test
	void tryConsumeWhenNodeRestartedThenFailureModeDecidesUntilNodeResumes() {
		this.runner.withPropertyValues(clusterProperties())
			.withPropertyValues("ratelimit.redis.failure-mode=closed")
			.run((context) -> {
				RedisGlobalBuckets buckets = context.getBean(RedisGlobalBuckets.class);
				FailoverBucketStore store = buckets.failover();
				BucketKey key = new BucketKey(-2, stores.incrementAndGet());
				RedisProcess node = cluster.nodeOf(buckets.redis().redisKey(key));
				BucketKey traffic = keyOn(node, buckets.redis());
				for (int i = 0; i < 10; i++) {
					assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
				}
				AtomicReference<Duration> back = new AtomicReference<>();

				DecisionsThroughSwitch.Result result = DecisionsThroughSwitch.run(store, traffic, key, LIMITS, () -> {
					long killed = System.nanoTime();
					node.kill();
					// Longer than the node timeout: the other nodes mark it failing.
					sleep(Duration.ofMillis(1500));
					try {
						node.restart();
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
					cluster.awaitHealthy(Duration.ofSeconds(10));
					back.set(Duration.ofNanos(System.nanoTime() - killed));
				}, Duration.ofSeconds(20));

				assertThat(result.firstFallback()).as("the failure mode decides").isNotNull();
				assertThat(result.resumed()).as("Redis decides again").isNotNull().isLessThan(Duration.ofSeconds(15));
				System.out.printf("Cluster node restart: node killed, started again 1500 ms later, cluster ok again "
						+ "%d ms after the kill; the failure mode (closed) decided %d requests from %d ms on, "
						+ "admitting %d; Redis decided again %d ms after the kill (cooldown 1000 ms)%n",
						back.get().toMillis(), result.byFailureMode(), result.firstFallback().toMillis(),
						result.watchedAdmittedByFailureMode(), result.resumed().toMillis());
				assertThat(result.watchedAdmittedByFailureMode()).as("closed admits nothing").isZero();
				long fallbacks = store.fallbacks();
				int admitted = 0;
				for (int i = 0; i < 20; i++) {
					admitted += store.tryConsume(key, LIMITS, 1).consumed() ? 1 : 0;
				}
				// What the node kept: ten tokens, less any the cluster admitted of the watched key
				// during the run (before the kill reached the store, or as the request that found
				// the node back).
				assertThat(admitted).as("the half the node kept").isEqualTo(10 - result.watchedAdmittedByRedis());
				assertThat(store.fallbacks()).as("decided by the cluster").isEqualTo(fallbacks);
			});
	}

	/** Returns a key whose bucket lives on {@code node}. */
	private static BucketKey keyOn(RedisProcess node, RedisBucketStore redis) {
		for (long i = 0;; i++) {
			BucketKey key = new BucketKey(-3, i);
			if (cluster.nodeOf(redis.redisKey(key)) == node) {
				return key;
			}
		}
	}

	private static String[] clusterProperties() {
		return new String[] { "spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()) };
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
