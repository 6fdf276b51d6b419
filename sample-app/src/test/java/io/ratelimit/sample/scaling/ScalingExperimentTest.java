package io.ratelimit.sample.scaling;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.sample.SampleApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A7, scaling: three replicas of the sample in this JVM share one PostgreSQL database and
 * one Redis. Three rows of R = {@value #RPS} rps with burst factor 1 (a capacity of R
 * requests): {@code GET /api/products/*} GLOBAL, {@code GET /api/orders/*}{@code /items}
 * GLOBAL_BATCHED, {@code GET /api/products} LOCAL. One
 * client address sends {@value #LOAD_FACTOR} x R requests a second to each replica on each
 * endpoint, round-robin, for a warm-up of {@value #WARM_UP_SECONDS} s that drains the
 * buckets, then a window of {@value #WINDOW_SECONDS} s: the requests sent in the window
 * count. Every bucket is then empty and admits at its refill rate: the GLOBAL and
 * GLOBAL_BATCHED rows R a second for all replicas together, the LOCAL row R a second per
 * replica, 3 x R (each asserted within 5%).
 * {@code scripts/scaling-experiment.sh} runs the same experiment on three sample jars; the
 * figures of both are in {@code docs/scaling.md}.
 */
class ScalingExperimentTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	static final int REPLICAS = 3;

	static final int RPS = 20;

	static final int LOAD_FACTOR = 3;

	static final int WARM_UP_SECONDS = 3;

	static final int WINDOW_SECONDS = 10;

	private static final List<ConfigurableApplicationContext> replicas = new ArrayList<>();

	@BeforeAll
	static void startReplicas() {
		for (int i = 0; i < REPLICAS; i++) {
			replicas.add(new SpringApplicationBuilder(SampleApplication.class).profiles("postgres")
				.run("--server.port=0", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
						"--spring.jmx.enabled=false", "--spring.datasource.url=" + database.url(),
						"--spring.datasource.username=" + database.user(),
						"--spring.datasource.password=" + database.password(),
						"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
						"--ratelimit.key-secret=scaling-experiment-shared-secret-0123456789",
						"--ratelimit.burst-factor=1", "--ratelimit.policy.refresh-interval=1h",
						// This test measures admission, not timeouts (RedisOutageTest does): a
						// pause of a busy build machine must not decide requests locally.
						"--ratelimit.redis.timeout=1s"));
		}
	}

	@AfterAll
	static void stopReplicas() {
		replicas.forEach(ConfigurableApplicationContext::close);
		replicas.clear();
	}

	@Test
	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	void loadWhenRoundRobinOverThreeReplicasThenGlobalAdmitsTheLimitOnceAndLocalThreeTimes() throws Exception {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("DELETE FROM rate_limit_policy WHERE endpoint IN ('GET /api/products', 'GET /api/products/*', "
					+ "'GET /api/orders/*/items')");
			sql.execute("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit, scope) VALUES "
					+ "('GET /api/products/*', NULL, " + RPS + ", 'GLOBAL'), "
					+ "('GET /api/orders/*/items', NULL, " + RPS + ", 'GLOBAL_BATCHED'), "
					+ "('GET /api/products', NULL, " + RPS + ", 'LOCAL')");
		}
		// NOTIFY reaches the replicas within milliseconds; reload anyway so the test does not race it.
		for (ConfigurableApplicationContext replica : replicas) {
			replica.getBean(RateLimiter.class).policies().reload();
		}
		double fallbacksBefore = fallbacks();
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
		ExecutorService senders = Executors.newFixedThreadPool(3 * REPLICAS);
		try {
			List<Future<Result>> global = new ArrayList<>();
			List<Future<Result>> batched = new ArrayList<>();
			List<Future<Result>> local = new ArrayList<>();
			for (int replica = 0; replica < REPLICAS; replica++) {
				global.add(senders.submit(load("/api/products/1", replica, start)));
				batched.add(senders.submit(load("/api/orders/1/items", replica, start)));
				local.add(senders.submit(load("/api/products", replica, start)));
			}
			Result globalResult = sum(global);
			Result batchedResult = sum(batched);
			Result localResult = sum(local);
			print("GLOBAL", globalResult, RPS);
			print("GLOBAL_BATCHED", batchedResult, RPS);
			print("LOCAL", localResult, REPLICAS * RPS);
			assertThat(fallbacks() - fallbacksBefore).as("decisions made without Redis").isZero();
			check("GLOBAL", globalResult, RPS);
			check("GLOBAL_BATCHED", batchedResult, RPS);
			check("LOCAL", localResult, REPLICAS * RPS);
		}
		finally {
			senders.shutdownNow();
		}
	}

	private static double fallbacks() {
		return replicas.stream()
			.mapToDouble((replica) -> replica.getBean(MeterRegistry.class)
				.find("ratelimit.redis.fallbacks")
				.counters()
				.stream()
				.mapToDouble(Counter::count)
				.sum())
			.sum();
	}

	private static Result sum(List<Future<Result>> parts) throws Exception {
		Result sum = new Result(0, 0, 0);
		for (Future<Result> part : parts) {
			Result r = part.get();
			sum = new Result(sum.sent() + r.sent(), sum.admitted() + r.admitted(), sum.rejected() + r.rejected());
		}
		return sum;
	}

	private static void print(String scope, Result result, int expectedRps) {
		System.out.printf("A7 %s row, R = %d rps, capacity %d, %d replicas: %d requests sent in the %d s window "
				+ "(%.1f rps offered), admitted %d = %.1f rps, expected %d rps%n", scope, RPS, RPS, REPLICAS,
				result.sent(), WINDOW_SECONDS, (double) result.sent() / WINDOW_SECONDS, result.admitted(),
				(double) result.admitted() / WINDOW_SECONDS, expectedRps);
	}

	private static void check(String scope, Result result, int expectedRps) {
		double expected = expectedRps * WINDOW_SECONDS;
		assertThat((double) result.admitted()).as("%s admitted", scope).isCloseTo(expected, within(expected * 0.05));
		assertThat(result.rejected()).as("%s: every request not admitted is a 429", scope)
			.isEqualTo(result.sent() - result.admitted());
	}

	/**
	 * Sends replica {@code replica}'s share of the round-robin: of the requests due every
	 * {@code 1 / (REPLICAS x LOAD_FACTOR x RPS)} s, those numbered {@code replica} modulo
	 * {@code REPLICAS}, on a fixed schedule (a late request does not move the later ones).
	 * One thread per replica, so one slow answer does not hold up the others' requests.
	 * Only the requests sent in the window count: a request of the warm-up sent late is
	 * decided in the warm-up's place, not the window's.
	 */
	private static Callable<Result> load(String path, int replica, long start) {
		return () -> {
			Http target = new Http(((WebServerApplicationContext) replicas.get(replica)).getWebServer().getPort());
			long interval = TimeUnit.SECONDS.toNanos(1) / (REPLICAS * LOAD_FACTOR * RPS);
			long windowStart = start + TimeUnit.SECONDS.toNanos(WARM_UP_SECONDS);
			long windowEnd = windowStart + TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);
			int sent = 0;
			int admitted = 0;
			int rejected = 0;
			for (long i = replica;; i += REPLICAS) {
				long due = start + i * interval;
				long wait = due - System.nanoTime();
				if (wait > 0) {
					TimeUnit.NANOSECONDS.sleep(wait);
				}
				long sending = System.nanoTime();
				if (sending >= windowEnd) {
					return new Result(sent, admitted, rejected);
				}
				int status = target.get(path).statusCode();
				if (sending >= windowStart) {
					sent++;
					admitted += (status == 200) ? 1 : 0;
					rejected += (status == 429) ? 1 : 0;
				}
			}
		};
	}

	record Result(int sent, int admitted, int rejected) {
	}

}
