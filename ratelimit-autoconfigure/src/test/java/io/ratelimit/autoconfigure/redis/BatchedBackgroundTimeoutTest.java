package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;

import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasedBucketStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The background calls of batched policies have a timeout of their own
 * ({@code ratelimit.redis.batch.timeout}, 1 s), longer than the requests'
 * ({@code ratelimit.redis.timeout}, 100 ms): a call that waits for its write and crosses to a
 * far Redis lands, where the requests' timeout would fail it and send the keys to the
 * failure mode; a request that waits for such a call still waits no longer than its own
 * timeout.
 */
class BatchedBackgroundTimeoutTest {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	/** A thousand tokens, credit of 100. */
	private static final BucketLimits ROOMY = BucketLimits.of(BigDecimal.valueOf(1000), BigDecimal.ONE, 1);

	/**
	 * 30 ms each way, and each background call waits 80 ms for its write: about 140 ms a
	 * call, more than the requests' 100 ms.
	 */
	private static final String[] FAR = { "ratelimit.redis.batch.flush-interval=80ms" };

	@Test
	void tryConsumeWhenBackgroundCallsTakeLongerThanTheRequestTimeoutThenTheyLandWithinTheirOwn() throws Exception {
		try (DelayingTcpProxy proxy = proxy(Duration.ofMillis(30))) {
			runner(proxy).withPropertyValues(FAR).run((context) -> {
				BucketStore store = context.getBean(GlobalBucketStore.class).batched();
				LeasedBucketStore leases = context.getBean(RedisGlobalBuckets.class).leases();
				long refills = leases.leaseStats().refills();

				// Decided on credit at once; its call lands in the background.
				assertThat(store.tryConsume(key(), ROOMY, 1).consumed()).isTrue();

				await().atMost(Duration.ofSeconds(5)).until(() -> leases.leaseStats().refills() > refills);
				assertThat(leases.leaseStats().refillFailures()).as("no call timed out").isZero();
			});
		}
	}

	@Test
	void tryConsumeWhenBackgroundTimeoutIsTheRequestsThenTheSameCallsTimeOut() throws Exception {
		try (DelayingTcpProxy proxy = proxy(Duration.ofMillis(30))) {
			runner(proxy).withPropertyValues(FAR).withPropertyValues("ratelimit.redis.batch.timeout=100ms")
				.run((context) -> {
				BucketStore store = context.getBean(GlobalBucketStore.class).batched();
				LeasedBucketStore leases = context.getBean(RedisGlobalBuckets.class).leases();

				assertThat(store.tryConsume(key(), ROOMY, 1).consumed()).isTrue();

				await().atMost(Duration.ofSeconds(5)).until(() -> leases.leaseStats().refillFailures() > 0);
			});
		}
	}

	@Test
	void tryConsumeWhenARequestWaitsForABackgroundCallThenNoLongerThanTheRequestTimeout() throws Exception {
		try (DelayingTcpProxy proxy = proxy(Duration.ZERO)) {
			runner(proxy).run((context) -> {
				BucketStore store = context.getBean(GlobalBucketStore.class).batched();
				BucketKey key = key();
				proxy.hang();
				try {
					// The credit of 100, its call on its way and hung: the next request joins it.
					for (int i = 0; i < 100; i++) {
						assertThat(store.tryConsume(key, ROOMY, 1).consumed()).isTrue();
					}
					long started = System.nanoTime();
					store.tryConsume(key, ROOMY, 1); // decided by the failure mode
					Duration waited = Duration.ofNanos(System.nanoTime() - started);

					// The requests' 100 ms, not the background's 1 s.
					assertThat(waited).isLessThan(Duration.ofMillis(500));
				}
				finally {
					proxy.heal();
				}
			});
		}
	}

	private static DelayingTcpProxy proxy(Duration delay) throws Exception {
		URI target = URI.create(redis.url());
		return DelayingTcpProxy.start(target.getHost(), target.getPort(), delay);
	}

	private static ApplicationContextRunner runner(DelayingTcpProxy proxy) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + proxy.redisUrl(),
					"ratelimit.redis.key-prefix=" + redis.prefix(),
					"ratelimit.key-secret=0123456789abcdef0123456789abcdef");
	}

	private static BucketKey key() {
		return new BucketKey(System.nanoTime(), 7);
	}

}
