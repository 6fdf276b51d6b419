package io.ratelimit.sample.scaling;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.sample.SampleApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The scaling experiment (A7) without its Redis: {@value #REPLICAS} replicas of the sample
 * in this JVM on one PostgreSQL database, rows of R = {@value #RPS} rps with burst factor 1
 * (a capacity of R requests), and one client address that sends {@value #LOAD_FACTOR} x R
 * requests a second to each replica on each endpoint, round-robin, for a warm-up of
 * {@value #WARM_UP_SECONDS} s that drains the buckets, then a window of
 * {@value #WINDOW_SECONDS} s: the requests sent in the window count. Every bucket is then
 * empty and admits at its refill rate. Each run says where Redis is.
 */
final class ScalingExperiment {

	static final int REPLICAS = 3;

	static final int RPS = 20;

	static final int LOAD_FACTOR = 3;

	static final int WARM_UP_SECONDS = 3;

	static final int WINDOW_SECONDS = 10;

	private ScalingExperiment() {
	}

	/**
	 * Starts the replicas, sharing {@code database} and the Redis that {@code redis} names.
	 * @param database the policy database
	 * @param redis the {@code --spring.data.redis...} and {@code --ratelimit.redis...} arguments
	 * @return the replicas; close them
	 */
	static List<ConfigurableApplicationContext> startReplicas(PostgresDatabase database, String... redis) {
		List<ConfigurableApplicationContext> replicas = new ArrayList<>();
		try {
			for (int i = 0; i < REPLICAS; i++) {
				List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
						"--logging.level.root=WARN", "--spring.jmx.enabled=false",
						"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
						"--spring.datasource.password=" + database.password(),
						"--ratelimit.key-secret=scaling-experiment-shared-secret-0123456789",
						"--ratelimit.burst-factor=1", "--ratelimit.policy.refresh-interval=1h",
						// This experiment measures admission, not timeouts (RedisOutageTest does):
						// a pause of a busy build machine must not decide requests locally.
						"--ratelimit.redis.timeout=1s"));
				arguments.addAll(List.of(redis));
				replicas.add(new SpringApplicationBuilder(SampleApplication.class).profiles("postgres")
					.run(arguments.toArray(String[]::new)));
			}
			return replicas;
		}
		catch (RuntimeException ex) {
			replicas.forEach(ConfigurableApplicationContext::close);
			throw ex;
		}
	}

	/**
	 * Replaces the rows of the given endpoint templates and has every replica load them.
	 * @param database the policy database
	 * @param replicas the replicas
	 * @param scopes the scope of each endpoint template's row, of R rps
	 */
	static void policies(PostgresDatabase database, List<ConfigurableApplicationContext> replicas,
			Map<String, String> scopes) throws Exception {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			List<String> endpoints = new ArrayList<>();
			List<String> rows = new ArrayList<>();
			scopes.forEach((endpoint, scope) -> {
				endpoints.add("'" + endpoint + "'");
				rows.add("('" + endpoint + "', NULL, " + RPS + ", '" + scope + "')");
			});
			sql.execute("DELETE FROM rate_limit_policy WHERE endpoint IN (" + String.join(", ", endpoints) + ")");
			sql.execute("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit, scope) VALUES "
					+ String.join(", ", rows));
		}
		// NOTIFY reaches the replicas within milliseconds; reload anyway so the test does not race it.
		for (ConfigurableApplicationContext replica : replicas) {
			replica.getBean(RateLimiter.class).policies().reload();
		}
	}

	/**
	 * Sends the load on every path at once, and adds up what each path's requests got.
	 * @param replicas the replicas
	 * @param paths the paths, one per row
	 * @return the result of each path, in the order given
	 */
	static Map<String, Result> run(List<ConfigurableApplicationContext> replicas, String... paths) throws Exception {
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
		ExecutorService senders = Executors.newFixedThreadPool(paths.length * replicas.size());
		try {
			Map<String, List<Future<Result>>> parts = new LinkedHashMap<>();
			for (int replica = 0; replica < replicas.size(); replica++) {
				for (String path : paths) {
					parts.computeIfAbsent(path, (p) -> new ArrayList<>())
						.add(senders.submit(load(replicas, path, replica, start)));
				}
			}
			Map<String, Result> results = new LinkedHashMap<>();
			for (Map.Entry<String, List<Future<Result>>> path : parts.entrySet()) {
				results.put(path.getKey(), sum(path.getValue()));
			}
			return results;
		}
		finally {
			senders.shutdownNow();
		}
	}

	/**
	 * Returns the decisions of global rows that the replicas made without Redis.
	 * @param replicas the replicas
	 * @return the sum of their {@code ratelimit.redis.fallbacks}
	 */
	static double fallbacks(List<ConfigurableApplicationContext> replicas) {
		return replicas.stream()
			.mapToDouble((replica) -> replica.getBean(MeterRegistry.class)
				.find("ratelimit.redis.fallbacks")
				.counters()
				.stream()
				.mapToDouble(Counter::count)
				.sum())
			.sum();
	}

	static void print(String scope, Result result, int expectedRps) {
		System.out.printf("A7 %s row, R = %d rps, capacity %d, %d replicas: %d requests sent in the %d s window "
				+ "(%.1f rps offered), admitted %d = %.1f rps, expected %d rps%n", scope, RPS, RPS, REPLICAS,
				result.sent(), WINDOW_SECONDS, (double) result.sent() / WINDOW_SECONDS, result.admitted(),
				(double) result.admitted() / WINDOW_SECONDS, expectedRps);
	}

	static void check(String scope, Result result, int expectedRps) {
		double expected = expectedRps * WINDOW_SECONDS;
		assertThat((double) result.admitted()).as("%s admitted", scope).isCloseTo(expected, within(expected * 0.05));
		assertThat(result.rejected()).as("%s: every request not admitted is a 429", scope)
			.isEqualTo(result.sent() - result.admitted());
	}

	private static Result sum(List<Future<Result>> parts) throws Exception {
		Result sum = new Result(0, 0, 0);
		for (Future<Result> part : parts) {
			Result r = part.get();
			sum = new Result(sum.sent() + r.sent(), sum.admitted() + r.admitted(), sum.rejected() + r.rejected());
		}
		return sum;
	}

	/**
	 * Sends replica {@code replica}'s share of the round-robin: of the requests due every
	 * {@code 1 / (REPLICAS x LOAD_FACTOR x RPS)} s, those numbered {@code replica} modulo
	 * {@code REPLICAS}, on a fixed schedule (a late request does not move the later ones).
	 * One thread per replica, so one slow answer does not hold up the others' requests.
	 * Only the requests sent in the window count: a request of the warm-up sent late is
	 * decided in the warm-up's place, not the window's.
	 */
	private static Callable<Result> load(List<ConfigurableApplicationContext> replicas, String path, int replica,
			long start) {
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

	/**
	 * What the requests of one row got in the window.
	 *
	 * @param sent the requests sent
	 * @param admitted those answered 200
	 * @param rejected those answered 429
	 */
	record Result(int sent, int admitted, int rejected) {
	}

}
