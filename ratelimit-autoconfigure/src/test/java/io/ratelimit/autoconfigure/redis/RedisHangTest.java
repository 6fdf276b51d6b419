package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis that hangs rather than fails: the test Redis behind a proxy that stops forwarding
 * without closing anything, so every call waits for its timeout. The global stores are the
 * auto-configuration's, with a threshold of 3 and the LOCAL failure mode; traffic mixes
 * keys that the store answers without Redis (a refusal from the remembered state, a
 * decision from a lease) with keys that need Redis.
 */
class RedisHangTest {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private static final int THRESHOLD = 3;

	private static final Duration COOLDOWN = Duration.ofMillis(300);

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofMillis(400);

	/** Two tokens, one more every 10 seconds: drained, it refuses for the whole test. */
	private static final BucketLimits SMALL = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(20), 1);

	/** A thousand tokens: never refuses; a static lease of it is 100 tokens. */
	private static final BucketLimits ROOMY = BucketLimits.of(BigDecimal.valueOf(1000), BigDecimal.ONE, 1);

	private static final AtomicLong keys = new AtomicLong();

	private DelayingTcpProxy proxy;

	private ApplicationContextRunner runner;

	@BeforeEach
	void start() throws Exception {
		URI target = URI.create(redis.url());
		this.proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO);
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + this.proxy.redisUrl(),
					"ratelimit.redis.key-prefix=" + redis.prefix(), "ratelimit.key-secret=0123456789abcdef0123456789abcdef",
					"ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms", "ratelimit.redis.failure-threshold=" + THRESHOLD,
					"ratelimit.redis.cooldown=" + COOLDOWN.toMillis() + "ms", "ratelimit.redis.failure-mode=local",
					"ratelimit.redis.batch.sizing=static", "ratelimit.redis.batch.shutdown-timeout=" + SHUTDOWN_TIMEOUT.toMillis() + "ms",
					// Cold keys wait for their first lease here, so that their requests call
					// Redis; with credit they are decided at once (the last test).
					"ratelimit.redis.batch.cold-key-share=0");
	}

	@AfterEach
	void stop() throws Exception {
		this.proxy.close();
	}

	@Test
	void tryConsumeWhenRedisHangsAndRefusalsRememberedThenBreakerOpensAfterThresholdTimeouts() {
		this.runner.run((context) -> {
			FailoverBucketStore store = (FailoverBucketStore) context.getBean(GlobalBucketStore.class).store();
			BucketKey drained = drained(store);
			this.proxy.hang();

			int slow = decideUntilBreakerOpens(store, drained, SMALL);

			assertThat(store.isCoolingDown()).as("breaker open").isTrue();
			assertThat(slow).as("decisions that waited for a timeout").isLessThanOrEqualTo(THRESHOLD);
		});
	}

	@Test
	void tryConsumeWhenRedisHangsAndKeyLeasedThenBreakerOpensAfterThresholdTimeouts() {
		this.runner.run((context) -> {
			FailoverBucketStore store = (FailoverBucketStore) context.getBean(GlobalBucketStore.class).batched();
			BucketKey leased = key();
			assertThat(store.tryConsume(leased, ROOMY, 1).consumed()).isTrue();
			this.proxy.hang();

			int slow = decideUntilBreakerOpens(store, leased, ROOMY);

			assertThat(store.isCoolingDown()).as("breaker open").isTrue();
			assertThat(slow).as("decisions that waited for a timeout").isLessThanOrEqualTo(THRESHOLD);
		});
	}

	@Test
	void tryConsumeWhenCooldownEndsAndRedisStillHangsThenBreakerClosesOnlyWhenRedisAnswers() {
		this.runner.run((context) -> {
			GlobalBucketStore global = context.getBean(GlobalBucketStore.class);
			FailoverBucketStore exact = (FailoverBucketStore) global.store();
			FailoverBucketStore batched = (FailoverBucketStore) global.batched();
			BucketKey drained = drained(exact);
			BucketKey leased = key();
			assertThat(batched.tryConsume(leased, ROOMY, 1).consumed()).isTrue();
			this.proxy.hang();
			decideUntilBreakerOpens(exact, drained, SMALL);
			decideUntilBreakerOpens(batched, leased, ROOMY);

			// Several cooldowns; each probe would be answered by the remembered refusal or
			// the lease if it were not a call to Redis itself.
			await().during(COOLDOWN.multipliedBy(4)).atMost(COOLDOWN.multipliedBy(8)).until(() -> {
				exact.tryConsume(drained, SMALL, 1);
				batched.tryConsume(leased, ROOMY, 1);
				return exact.isCoolingDown() && batched.isCoolingDown();
			});

			this.proxy.heal();
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				exact.tryConsume(drained, SMALL, 1);
				batched.tryConsume(leased, ROOMY, 1);
				return !exact.isCoolingDown() && !batched.isCoolingDown();
			});
		});
	}

	@Test
	void tryConsumeWhenRedisHangsAndKeysAreColdThenDecidedOnCreditWithoutWaiting() {
		this.runner.withPropertyValues("ratelimit.redis.batch.cold-key-share=0.1").run((context) -> {
			BucketStore store = context.getBean(GlobalBucketStore.class).batched();
			this.proxy.hang();

			for (int i = 0; i < 50; i++) {
				BucketKey cold = key();
				assertThat(timedOut(() -> assertThat(store.tryConsume(cold, ROOMY, 1).consumed()).isTrue()))
					.as("decided at once").isFalse();
			}
			assertThat(context.getBean(GlobalBucketStore.class).leases().leaseStats().coldStarts()).isEqualTo(50);
		});
	}

	@Test
	void tryConsumeWhenRedisHangsThenRequestsOfOneKeyWaitForOneCallNotOneEach() {
		this.runner.run((context) -> {
			BucketStore store = context.getBean(GlobalBucketStore.class).batched();
			BucketKey key = key();
			this.proxy.hang();

			Duration longest = longestOfConcurrent(store, key, 8);

			// One timeout for the call they all wait for; far less than one each in turn.
			assertThat(longest).isLessThan(TIMEOUT.multipliedBy(2));
		});
	}

	@Test
	void tryConsumeWhenRedisHangsThenRequestsQueuedBehindAFailedCallOfTheirKeyFailAtOnce() {
		this.runner.run((context) -> {
			BucketStore store = context.getBean(GlobalBucketStore.class).store();
			BucketKey key = key();
			assertThat(store.tryConsume(key, ROOMY, 1).consumed()).isTrue();
			this.proxy.hang();

			// Bucket4j sends a hot key's concurrent requests together once the call in flight
			// ends: after it failed, they must not wait for a timeout of their own as well.
			Duration longest = longestOfConcurrent(store, key, 8);

			assertThat(longest).isLessThan(TIMEOUT.multipliedBy(3).dividedBy(2));
		});
	}

	@Test
	void tryConsumeWhenRedisHangsSinceStartupThenConcurrentRequestsShareAConnectionAttempt() {
		this.proxy.hang();
		this.runner.run((context) -> {
			BucketStore store = context.getBean(GlobalBucketStore.class).store();
			int before = this.proxy.connections();

			// Sixteen requests at once find no connection: one opens it, the others wait for
			// that attempt and fail with it, not each with an attempt of its own in turn.
			Duration longest = longestOfConcurrent(store, key(), 16);

			assertThat(this.proxy.connections() - before).as("connection attempts").isLessThanOrEqualTo(3);
			// The attempt fails after about a timeout, and every request with it.
			assertThat(longest).isLessThan(TIMEOUT.multipliedBy(2).plusMillis(500));
		});
	}

	private static Duration longestOfConcurrent(BucketStore store, BucketKey key, int threads) throws Exception {
		ExecutorService senders = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Long>> times = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				times.add(senders.submit(() -> {
					start.await();
					long started = System.nanoTime();
					store.tryConsume(key, ROOMY, 1);
					return System.nanoTime() - started;
				}));
			}
			start.countDown();
			long longest = 0;
			for (Future<Long> time : times) {
				longest = Math.max(longest, time.get());
			}
			return Duration.ofNanos(longest);
		}
		finally {
			senders.shutdownNow();
		}
	}

	@Test
	void closeWhenRedisHangsWithLeasesHeldThenShutdownWithinTimeout() {
		long[] closing = new long[1];
		LeasedBucketStore[] leases = new LeasedBucketStore[1];
		this.runner.run((context) -> {
			leases[0] = context.getBean(GlobalBucketStore.class).leases();
			BucketStore store = context.getBean(GlobalBucketStore.class).batched();
			for (int i = 0; i < 60; i++) {
				assertThat(store.tryConsume(key(), ROOMY, 1).consumed()).isTrue();
			}
			this.proxy.hang();
			closing[0] = System.nanoTime();
		});
		Duration shutdown = Duration.ofNanos(System.nanoTime() - closing[0]);
		System.out.printf("[hang] shutdown with 60 leases held and Redis hanging: %d ms (shutdown-timeout %d ms, "
				+ "timeout %d ms), %s%n", shutdown.toMillis(), SHUTDOWN_TIMEOUT.toMillis(), TIMEOUT.toMillis(),
				leases[0].leaseStats());
		// The shutdown timeout, plus closing the connection; not a timeout per lease in a row.
		assertThat(shutdown).isLessThan(SHUTDOWN_TIMEOUT.multipliedBy(2));
	}

	/**
	 * Alternates the key answered without Redis with keys never seen, as mixed traffic
	 * does, until the breaker opens; returns how many decisions waited for a timeout.
	 */
	private static int decideUntilBreakerOpens(FailoverBucketStore store, BucketKey answeredLocally,
			BucketLimits limits) {
		int slow = 0;
		for (int i = 0; i < 20 && !store.isCoolingDown(); i++) {
			slow += timedOut(() -> store.tryConsume(answeredLocally, limits, 1)) ? 1 : 0;
			if (!store.isCoolingDown()) {
				slow += timedOut(() -> store.tryConsume(key(), ROOMY, 1)) ? 1 : 0;
			}
		}
		return slow;
	}

	private static boolean timedOut(Runnable decision) {
		long started = System.nanoTime();
		decision.run();
		return System.nanoTime() - started >= TIMEOUT.toNanos() / 2;
	}

	/** A key whose refusal the store remembers: drained while Redis answered. */
	private static BucketKey drained(BucketStore store) {
		BucketKey key = key();
		assertThat(store.tryConsume(key, SMALL, 1).consumed()).isTrue();
		assertThat(store.tryConsume(key, SMALL, 1).consumed()).isTrue();
		assertThat(store.tryConsume(key, SMALL, 1).consumed()).isFalse();
		return key;
	}

	private static BucketKey key() {
		return new BucketKey(keys.incrementAndGet(), System.nanoTime());
	}

}
