package io.ratelimit.autoconfigure.redis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.RedisServerProcess;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.concurrency.Permit;
import io.ratelimit.core.concurrency.PermitStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Permits of global in-flight limits in Redis, shared by replicas (stores of their own on
 * one Redis): together they never hold more than the limit, a live replica's permits are
 * renewed past their time to live, a dead replica's are free again within it, a renewal
 * round gives up on a hung Redis after three timeouts and keeps the permits for the next,
 * and when Redis is down or hangs the failure mode decides.
 */
class RedisPermitStoreTest {

	private static final Duration TTL = Duration.ofSeconds(1);

	private static final AtomicLong keys = new AtomicLong();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private final List<AutoCloseable> opened = new ArrayList<>();

	private RedisPermitStore replica(String url, Duration timeout) {
		RedisPermitStore store = new RedisPermitStore(RedisConnector.of(RedisClient.create(url)), redis.prefix(),
				timeout, TTL);
		this.opened.add(store);
		return store;
	}

	private RedisPermitStore replica() {
		return replica(redis.url(), Duration.ofSeconds(2));
	}

	private static BucketKey key() {
		return new BucketKey(System.nanoTime(), keys.incrementAndGet());
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable store : this.opened) {
			store.close();
		}
	}

	@Test
	void tryAcquireWhenTwoReplicasShareALimitThenTogetherNoMoreThanItAndAReleaseFreesOne() {
		RedisPermitStore a = replica();
		RedisPermitStore b = replica();
		BucketKey key = key();

		Permit first = a.tryAcquire(key, 3);
		assertThat(first).isNotNull();
		assertThat(first.remaining()).isEqualTo(2);
		assertThat(a.tryAcquire(key, 3)).isNotNull();
		Permit third = b.tryAcquire(key, 3);
		assertThat(third).isNotNull();
		assertThat(third.remaining()).isZero();
		assertThat(b.tryAcquire(key, 3)).isNull();
		assertThat(a.tryAcquire(key, 3)).isNull();

		first.release();
		assertThat(b.tryAcquire(key, 3)).isNotNull();
		assertThat(a.permitsHeld() + b.permitsHeld()).isEqualTo(3);
	}

	@Test
	void tryAcquireWhenPermitTakenThenItsKeyIsThePrefixedHashAndExpiresWithinTheTtl() {
		RedisPermitStore store = replica();
		BucketKey key = new BucketKey(0x0123456789abcdefL, keys.incrementAndGet());

		store.tryAcquire(key, 1);

		String redisKey = new String(store.redisKey(key), StandardCharsets.US_ASCII);
		assertThat(redisKey).startsWith(redis.prefix() + "in-flight:0123456789abcdef");
		long ttl = redis.execute((commands) -> commands.pttl(redisKey));
		long members = redis.execute((commands) -> commands.zcard(redisKey));
		assertThat(ttl).isPositive().isLessThanOrEqualTo(TTL.toMillis());
		assertThat(members).isEqualTo(1);
	}

	@Test
	void permitsWhenTheirReplicaLivesThenRenewedPastTheTtl() {
		RedisPermitStore holder = replica();
		RedisPermitStore other = replica();
		BucketKey key = key();
		assertThat(holder.tryAcquire(key, 1)).isNotNull();

		await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(4)).until(() -> other.tryAcquire(key, 1) == null);
	}

	@Test
	void permitsWhenTheirReplicaDiesThenFreeAgainWithinTheTtl() {
		RedisPermitStore dying = replica();
		RedisPermitStore survivor = replica();
		BucketKey key = key();
		assertThat(dying.tryAcquire(key, 2)).isNotNull();
		assertThat(dying.tryAcquire(key, 2)).isNotNull();
		assertThat(survivor.tryAcquire(key, 2)).isNull();

		long died = System.nanoTime();
		dying.abandon();

		// Each permit expires a time to live after its own last renewal: a round cut short by
		// the death may have renewed one and not the other.
		List<Permit> taken = new ArrayList<>();
		await().atMost(TTL.plusMillis(500)).pollInterval(Duration.ofMillis(20)).until(() -> {
			Permit permit = survivor.tryAcquire(key, 2);
			if (permit != null) {
				taken.add(permit);
			}
			return taken.size() == 2;
		});
		Duration free = Duration.ofNanos(System.nanoTime() - died);
		System.out.printf("A dead replica's permits were free again %d ms after it died (ttl %d ms)%n",
				free.toMillis(), TTL.toMillis());
		assertThat(free).isLessThanOrEqualTo(TTL.plusMillis(500));
		assertThat(survivor.tryAcquire(key, 2)).isNull();
	}

	@Test
	void tryAcquireWhenRedisDownThenEachFailureModeDecides() throws Exception {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			RedisPermitStore remote = replica(server.url(), Duration.ofMillis(200));
			BucketKey key = key();
			assertThat(remote.tryAcquire(key, 1)).isNotNull();
			server.stop();

			LocalPermitStore local = LocalPermitStore.create(100);
			PermitStore localMode = failover(remote, RedisFailureMode.LOCAL, local);
			assertThat(localMode.tryAcquire(key, 1)).isNotNull();
			assertThat(localMode.tryAcquire(key, 1)).as("the same limit, on this replica").isNull();
			PermitStore open = failover(remote, RedisFailureMode.OPEN, local);
			for (int i = 0; i < 5; i++) {
				Permit permit = open.tryAcquire(key, 1);
				assertThat(permit).isNotNull();
				permit.release();
			}
			assertThat(failover(remote, RedisFailureMode.CLOSED, local).tryAcquire(key, 1)).isNull();
		}
	}

	@Test
	void tryAcquireWhenRedisHangsThenTheBreakerOpensAfterTheThresholdAndDecisionsStopWaiting() throws Exception {
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start("127.0.0.1", 6379, Duration.ZERO)) {
			RedisPermitStore remote = replica(proxy.redisUrl(), Duration.ofMillis(200));
			FailoverPermitStore store = failover(remote, RedisFailureMode.CLOSED, LocalPermitStore.create(100));
			assertThat(store.tryAcquire(key(), 1)).isNotNull();
			proxy.hang();

			for (int i = 0; i < 3; i++) {
				assertThat(store.tryAcquire(key(), 1)).isNull();
			}
			assertThat(store.isCoolingDown()).isTrue();
			long started = System.nanoTime();
			assertThat(store.tryAcquire(key(), 1)).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(100));
			assertThat(store.failures()).isEqualTo(3);
			proxy.heal();
		}
	}

	@Test
	void renewAllWhenRedisHangsThenTheRoundEndsAfterThreeFailuresAndTheNextRenewsThePermitsKept() throws Exception {
		URI target = URI.create(redis.url());
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO)) {
			Duration timeout = Duration.ofMillis(100);
			RedisPermitStore holder = replica(proxy.redisUrl(), timeout);
			RedisPermitStore other = replica();
			BucketKey key = key();
			for (int i = 0; i < 10; i++) {
				assertThat(holder.tryAcquire(key, 10)).isNotNull();
			}
			proxy.hang();

			long started = System.nanoTime();
			holder.renewAll();
			Duration round = Duration.ofNanos(System.nanoTime() - started);

			// Three timeouts, not one per permit (ten).
			assertThat(round).isGreaterThanOrEqualTo(timeout.multipliedBy(3)).isLessThan(timeout.multipliedBy(6));
			assertThat(holder.permitsHeld()).as("kept for the next round").isEqualTo(10);
			proxy.heal();
			await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(3)).until(() -> other.tryAcquire(key, 10) == null);
			assertThat(holder.permitsHeld()).isEqualTo(10);
			assertThat(holder.lostPermits()).isZero();
		}
	}

	@Test
	void renewAllWhenRedisHangsLongerThanTheTtlThenThePermitsExpireAndTheHolderDropsThemWhenRedisAnswers()
			throws Exception {
		URI target = URI.create(redis.url());
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO)) {
			RedisPermitStore holder = replica(proxy.redisUrl(), Duration.ofMillis(100));
			RedisPermitStore other = replica();
			BucketKey key = key();
			for (int i = 0; i < 10; i++) {
				assertThat(holder.tryAcquire(key, 10)).isNotNull();
			}
			proxy.hang();

			// Every round gives up while Redis is away; the permits are still counted as held.
			await().during(TTL.plusMillis(300)).atMost(TTL.multipliedBy(3)).until(() -> holder.permitsHeld() == 10);
			proxy.heal();

			await().atMost(TTL.multipliedBy(2)).until(() -> holder.permitsHeld() == 0);
			assertThat(holder.lostPermits()).isEqualTo(10);
			for (int i = 0; i < 10; i++) {
				assertThat(other.tryAcquire(key, 10)).as("expired, free for another replica").isNotNull();
			}
		}
	}

	private static FailoverPermitStore failover(PermitStore remote, RedisFailureMode mode, PermitStore local) {
		return new FailoverPermitStore(remote, mode, local, 3, Duration.ofSeconds(30), TimeSource.system());
	}

}
