package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis hangs for 10 s under mixed traffic, for {@code docs/scaling.md}: how soon the
 * breakers open, what a decision costs during the hang, and that they close only when Redis
 * answers again.
 * <p>
 * Workload: the test Redis behind a {@link DelayingTcpProxy} that {@linkplain
 * DelayingTcpProxy#hang() hangs}; the global stores of the auto-configuration with its
 * defaults (timeout 100 ms, threshold 3, LOCAL failure mode) but a 2 s cooldown, so that
 * five probes fall in the hang. Eight sender threads, each deciding about every
 * millisecond, pick at random among: an exact key whose refusal is remembered (20 keys
 * drained beforehand), an exact hot key (20 keys, never refusing), a fresh exact key, a
 * batched key with a lease (20 keys, leased beforehand), a fresh batched key. After a 2 s
 * warm-up with Redis answering, the proxy hangs for 10 s, then heals. Reported: the time
 * from the hang to each breaker opening and the failures counted by then, P50 / P99 / max of
 * the decisions during the hang, whether a breaker closed during the hang, and how soon
 * after the heal both closed.
 * <p>
 * Run: {@code ./mvnw -pl ratelimit-autoconfigure -am test -Dtest=RedisHangExperiment
 * -Dratelimit.experiment=hang -Dsurefire.failIfNoSpecifiedTests=false}
 */
@EnabledIfSystemProperty(named = "ratelimit.experiment", matches = "hang")
class RedisHangExperiment {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static final Duration TIMEOUT = Duration.ofMillis(100);

	private static final Duration HANG = Duration.ofSeconds(10);

	private static final int SENDERS = 8;

	private static final BucketLimits SMALL = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(20), 1);

	private static final BucketLimits ROOMY = BucketLimits.of(BigDecimal.valueOf(100_000), BigDecimal.ONE, 1);

	private static final AtomicLong fresh = new AtomicLong(1_000_000);

	@Test
	void tryConsumeWhenRedisHangsUnderMixedTrafficThenBreakersOpenFastAndDecisionsStayUnderTheTimeout()
			throws Exception {
		URI target = URI.create(redis.url());
		try (DelayingTcpProxy proxy = DelayingTcpProxy.start(target.getHost(), target.getPort(), Duration.ZERO)) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
						RateLimitRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.url=" + proxy.redisUrl(),
						"ratelimit.redis.key-prefix=" + redis.prefix(),
						"ratelimit.key-secret=0123456789abcdef0123456789abcdef", "ratelimit.redis.cooldown=2s")
				.run((context) -> run(proxy, context.getBean(GlobalBucketStore.class)));
		}
	}

	private void run(DelayingTcpProxy proxy, GlobalBucketStore global) throws Exception {
		FailoverBucketStore exact = (FailoverBucketStore) global.store();
		FailoverBucketStore batched = (FailoverBucketStore) global.batched();
		List<BucketKey> drained = keys(20);
		List<BucketKey> hot = keys(20);
		List<BucketKey> leased = keys(20);
		for (BucketKey key : drained) {
			while (exact.tryConsume(key, SMALL, 1).consumed()) {
				// until refused: the refusal is remembered
			}
		}
		for (BucketKey key : leased) {
			assertThat(batched.tryConsume(key, ROOMY, 1).consumed()).isTrue();
		}
		Traffic traffic = new Traffic(exact, batched, drained, hot, leased);
		ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
		try {
			List<Future<long[]>> samples = new ArrayList<>();
			long warmUpEnd = System.nanoTime() + Duration.ofSeconds(2).toNanos();
			long hangStart = warmUpEnd;
			long hangEnd = hangStart + HANG.toNanos();
			for (int i = 0; i < SENDERS; i++) {
				int seed = i;
				samples.add(senders.submit(() -> traffic.send(seed, hangStart, hangEnd)));
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - warmUpEnd >= 0);
			proxy.hang();
			Breakers breakers = Breakers.watch(exact, batched, hangEnd);
			await().atMost(HANG.plusSeconds(2)).until(() -> System.nanoTime() - hangEnd >= 0);
			proxy.heal();
			long healed = System.nanoTime();
			// Requests go on after the heal (the breakers only try Redis for a request).
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				exact.tryConsume(keys(1).get(0), ROOMY, 1);
				batched.tryConsume(keys(1).get(0), ROOMY, 1);
				return !exact.isCoolingDown() && !batched.isCoolingDown();
			});
			long closedAfterMillis = (System.nanoTime() - healed) / 1_000_000;
			long[] all = samples.stream().flatMap((future) -> {
				try {
					return Arrays.stream(future.get()).boxed();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}).mapToLong(Long::longValue).sorted().toArray();
			breakers.report(hangStart);
			long slow = Arrays.stream(all).filter((time) -> time >= TIMEOUT.toNanos() / 2).count();
			System.out.printf("[hang] %d decisions during the %d s hang: P50 %.3f ms, P99 %.3f ms, P99.9 %.3f ms, "
					+ "max %.1f ms (timeout %d ms); %d waited half the timeout or more%n", all.length,
					HANG.toSeconds(), percentile(all, 0.50), percentile(all, 0.99), percentile(all, 0.999),
					all[all.length - 1] / 1e6, TIMEOUT.toMillis(), slow);
			System.out.printf("[hang] after the heal both breakers closed within %d ms (cooldown 2 s)%n",
					closedAfterMillis);
			assertThat(breakers.closedDuringHang()).as("a breaker closed while Redis hung").isFalse();
			assertThat(percentile(all, 0.99)).isLessThanOrEqualTo(TIMEOUT.toMillis());
		}
		finally {
			senders.shutdownNow();
		}
	}

	private static double percentile(long[] sorted, double p) {
		return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
	}

	private static List<BucketKey> keys(int count) {
		List<BucketKey> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(new BucketKey(fresh.incrementAndGet(), System.nanoTime()));
		}
		return keys;
	}

	/** The senders' mix of keys. */
	private record Traffic(FailoverBucketStore exact, FailoverBucketStore batched, List<BucketKey> drained,
			List<BucketKey> hot, List<BucketKey> leased) {

		/** Decides until the hang ends; returns the times of the decisions made during it. */
		long[] send(int seed, long hangStart, long hangEnd) {
			SplittableRandom random = new SplittableRandom(seed);
			long[] times = new long[20_000];
			int count = 0;
			long now;
			while ((now = System.nanoTime()) - hangEnd < 0) {
				int kind = random.nextInt(5);
				BucketKey key = switch (kind) {
					case 0 -> this.drained.get(random.nextInt(this.drained.size()));
					case 1 -> this.hot.get(random.nextInt(this.hot.size()));
					case 3 -> this.leased.get(random.nextInt(this.leased.size()));
					default -> new BucketKey(fresh.incrementAndGet(), now);
				};
				long started = System.nanoTime();
				if (kind == 0) {
					this.exact.tryConsume(key, SMALL, 1);
				}
				else if (kind <= 2) {
					this.exact.tryConsume(key, ROOMY, 1);
				}
				else {
					this.batched.tryConsume(key, ROOMY, 1);
				}
				long ended = System.nanoTime();
				if (started - hangStart >= 0 && count < times.length) {
					times[count++] = ended - started;
				}
				LockSupport.parkNanos(1_000_000L); // the pace of arrivals, not a wait for a condition
			}
			return Arrays.copyOf(times, count);
		}

	}

	/** Watches both breakers from the hang on: when each opened, and whether one closed. */
	private static final class Breakers {

		private final FailoverBucketStore exact;

		private final FailoverBucketStore batched;

		private volatile long exactOpened;

		private volatile long batchedOpened;

		private volatile long exactFailures;

		private volatile long batchedFailures;

		private volatile boolean closedDuringHang;

		private Breakers(FailoverBucketStore exact, FailoverBucketStore batched) {
			this.exact = exact;
			this.batched = batched;
		}

		static Breakers watch(FailoverBucketStore exact, FailoverBucketStore batched, long hangEnd) {
			Breakers breakers = new Breakers(exact, batched);
			Thread watcher = new Thread(() -> breakers.poll(hangEnd), "breaker-watcher");
			watcher.setDaemon(true);
			watcher.start();
			return breakers;
		}

		private void poll(long hangEnd) {
			while (System.nanoTime() - hangEnd < 0) {
				long now = System.nanoTime();
				if (this.exactOpened == 0 && this.exact.isCoolingDown()) {
					this.exactOpened = now;
					this.exactFailures = this.exact.failures();
				}
				if (this.batchedOpened == 0 && this.batched.isCoolingDown()) {
					this.batchedOpened = now;
					this.batchedFailures = this.batched.failures();
				}
				if ((this.exactOpened != 0 && !this.exact.isCoolingDown())
						|| (this.batchedOpened != 0 && !this.batched.isCoolingDown())) {
					this.closedDuringHang = true;
				}
				LockSupport.parkNanos(200_000L);
			}
		}

		boolean closedDuringHang() {
			return this.closedDuringHang;
		}

		void report(long hangStart) {
			System.out.printf("[hang] exact breaker opened %s after the hang began (%d failures counted); batched "
					+ "breaker %s (%d failures); closed during the hang: %s%n", since(this.exactOpened, hangStart),
					this.exactFailures, since(this.batchedOpened, hangStart), this.batchedFailures,
					this.closedDuringHang);
		}

		private static String since(long opened, long hangStart) {
			return (opened == 0) ? "never" : ((opened - hangStart) / 1_000_000) + " ms";
		}

	}

}
