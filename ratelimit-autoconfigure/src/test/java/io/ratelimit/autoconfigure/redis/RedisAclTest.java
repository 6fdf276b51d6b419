package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ratelimit.autoconfigure.testsupport.RedisProcess;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.LeasableBucketStore;
import io.ratelimit.core.concurrency.Permit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The limiter through the least-privileged ACL user the README gives, on a server of this
 * class's own where the default user is off: Bucket4j's compare-and-swap needs {@code GET}
 * and {@code EVAL}, and its scripts call {@code GET}, {@code SET} and {@code PSETEX}, all on
 * keys under the limiter's prefix; the permits of {@code GLOBAL} in-flight limits add
 * {@code TIME}, the sorted-set and expiry commands of their scripts and {@code ZREM}.
 * Everything the stores do (decisions, refunds, the leases of batched policies, permits taken,
 * renewed and given back) works through that user, and nothing else does.
 */
class RedisAclTest {

	/** The rules of {@code ACL SETUSER ratelimit reset on >password ...} in the README. */
	static final List<String> RULES = List.of("~ratelimit:*", "resetchannels", "-@all", "+get", "+eval", "+set",
			"+psetex", "+time", "+zremrangebyscore", "+zcard", "+zadd", "+pexpire", "+zscore", "+zrem");

	/**
	 * The rules of the README for a cluster node, after the password: the cluster client
	 * also reads the topology
	 * ({@code CLUSTER NODES}, without which it cannot connect; {@code CLUSTER MYID},
	 * {@code INFO} and {@code CLIENT SETNAME}, whose refusal it tolerates but the ACL log
	 * records).
	 */
	static final List<String> CLUSTER_RULES = List.of("~ratelimit:*", "resetchannels", "-@all", "+get", "+eval",
			"+set", "+psetex", "+time", "+zremrangebyscore", "+zcard", "+zadd", "+pexpire", "+zscore", "+zrem",
			"+cluster|nodes", "+cluster|myid", "+info", "+client|setname");

	private static final String PASSWORD = "limiter-secret";

	/** 20 tokens, one more every 10 seconds: nothing refills while a test runs. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);

	private static RedisProcess server;

	private static Path directory;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class))
		.withPropertyValues("ratelimit.key-secret=0123456789abcdef0123456789abcdef", "ratelimit.redis.cooldown=1s",
				"spring.data.redis.host=127.0.0.1");

	@BeforeAll
	static void startServer() throws Exception {
		RedisProcess.assumeInstalled();
		directory = RedisProcess.newDirectory("acl");
		int port = RedisProcess.freePort();
		List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--user", "default", "off", "--user", "admin", "on", ">admin", "~*",
				"&*", "+@all", "--user", "ratelimit", "reset", "on", ">" + PASSWORD));
		arguments.addAll(RULES);
		server = RedisProcess.start(port, directory, arguments);
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
		if (directory != null) {
			RedisProcess.deleteDirectory(directory);
		}
	}

	/** The tests that expect refusals log them: each test sees only its own. */
	@BeforeEach
	void resetAclLog() {
		admin("ACL", "LOG", "RESET");
	}

	@Test
	void runWhenLimiterUserThenDecisionsRefundsAndLeasesWorkThroughIt() {
		this.runner.withPropertyValues(limiterUser()).run((context) -> {
			RedisGlobalBuckets buckets = context.getBean(RedisGlobalBuckets.class);
			FailoverBucketStore store = buckets.failover();
			BucketKey key = new BucketKey(1, System.nanoTime());
			for (int i = 0; i < 20; i++) {
				assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
			}
			assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isFalse();
			store.refund(key, LIMITS, 1);
			assertThat(store.tryConsume(key, LIMITS, 1).consumed()).isTrue();
			BucketKey leased = new BucketKey(2, System.nanoTime());
			LeasableBucketStore.Grant grant = buckets.redis().lease(leased, LIMITS, 5 * BucketLimits.UNITS_PER_TOKEN);
			assertThat(grant.units()).isEqualTo(5 * BucketLimits.UNITS_PER_TOKEN);
			buckets.redis().giveBack(leased, LIMITS, grant.units());
			assertThat(store.failures()).isZero();
			assertThat(store.fallbacks()).isZero();
			assertThat(admin("ACL", "LOG")).as("nothing refused").isEmpty();
		});
	}

	/**
	 * The permits of {@code GLOBAL} in-flight limits: their scripts call {@code TIME} and the
	 * sorted-set and expiry commands, and a release is a {@code ZREM}. A refusal of any would
	 * leave every in-flight decision to the failure mode, whose local store would refuse the
	 * third permit as well: the permits are counted in Redis to tell them apart.
	 */
	@Test
	void runWhenLimiterUserThenInFlightPermitsAreTakenRenewedAndReleasedThroughIt() {
		this.runner.withPropertyValues(limiterUser()).run((context) -> {
			RedisGlobalPermits permits = context.getBean(RedisGlobalPermits.class);
			FailoverPermitStore store = permits.failover();
			BucketKey key = new BucketKey(4, System.nanoTime());
			String redisKey = new String(permits.redis().redisKey(key), StandardCharsets.US_ASCII);
			Permit first = store.tryAcquire(key, 2);
			Permit second = store.tryAcquire(key, 2);
			assertThat(first).isNotNull();
			assertThat(second).isNotNull();
			assertThat(store.tryAcquire(key, 2)).as("none left").isNull();
			assertThat(admin("ZCARD", redisKey)).as("held in Redis").isEqualTo("2");
			permits.redis().renewAll();
			first.release();
			assertThat(admin("ZCARD", redisKey)).as("given back in Redis").isEqualTo("1");
			assertThat(store.tryAcquire(key, 2)).isNotNull();
			assertThat(store.failures()).isZero();
			assertThat(store.fallbacks()).isZero();
			assertThat(permits.redis().lostPermits()).isZero();
			assertThat(admin("ACL", "LOG")).as("nothing refused").isEmpty();
		});
	}

	@Test
	void runWhenKeyPrefixOutsideTheUsersKeysThenRefusedAndFailureModeDecides() {
		this.runner.withPropertyValues(limiterUser())
			.withPropertyValues("ratelimit.redis.key-prefix=other:", "ratelimit.redis.failure-mode=closed")
			.run((context) -> {
				FailoverBucketStore store = context.getBean(RedisGlobalBuckets.class).failover();
				assertThat(store.tryConsume(new BucketKey(3, System.nanoTime()), LIMITS, 1).consumed()).isFalse();
				assertThat(store.fallbacks()).isOne();
				assertThat(store.lastFailure()).contains("NOPERM");
			});
	}

	@Test
	void executeWhenCommandOrKeyOutsideTheRulesThenRefused() {
		admin("SET", "session:1", "private");
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost("127.0.0.1")
			.withPort(server.port())
			.withAuthentication("ratelimit", PASSWORD.toCharArray())
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			assertThat(redis.get("ratelimit:nothing")).isNull();
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(() -> redis.get("session:1"))
				.withMessageStartingWith("NOPERM");
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(() -> redis.keys("*"))
				.withMessageStartingWith("NOPERM");
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(redis::flushall)
				.withMessageStartingWith("NOPERM");
			assertThatExceptionOfType(RedisCommandExecutionException.class)
				.isThrownBy(() -> redis.configGet("requirepass"))
				.withMessageStartingWith("NOPERM");
			// Scripts run with the caller's rights: no command or key beyond them either.
			assertThatExceptionOfType(RedisCommandExecutionException.class)
				.isThrownBy(() -> redis.eval("return redis.call('del', KEYS[1])", ScriptOutputType.INTEGER,
						"ratelimit:x"))
				.withMessageContaining("can't run this command");
			assertThatExceptionOfType(RedisCommandExecutionException.class)
				.isThrownBy(() -> redis.eval("return redis.call('get', 'session:1')", ScriptOutputType.VALUE))
				.withMessageContaining("can't access at least one of the keys");
		}
		finally {
			client.shutdown();
		}
		assertThat(RedisProcess.run(List.of("redis-cli", "-p", String.valueOf(server.port()), "GET", "session:1")))
			.as("the default user is off").startsWith("NOAUTH");
	}

	private static String[] limiterUser() {
		return new String[] { "spring.data.redis.port=" + server.port(), "spring.data.redis.username=ratelimit",
				"spring.data.redis.password=" + PASSWORD };
	}

	private static String admin(String... command) {
		List<String> arguments = new ArrayList<>(List.of("--user", "admin", "--pass", "admin", "--no-auth-warning"));
		arguments.addAll(List.of(command));
		return server.cli(arguments.toArray(String[]::new));
	}

}
