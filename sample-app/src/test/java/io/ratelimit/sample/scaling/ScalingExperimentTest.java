package io.ratelimit.sample.scaling;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.sample.scaling.ScalingExperiment.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;

import static io.ratelimit.sample.scaling.ScalingExperiment.REPLICAS;
import static io.ratelimit.sample.scaling.ScalingExperiment.RPS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A7, scaling: three replicas of the sample in this JVM share one PostgreSQL database and
 * one Redis. Three rows of R = {@value ScalingExperiment#RPS} rps with burst factor 1 (a
 * capacity of R requests): {@code GET /api/products/*} GLOBAL,
 * {@code GET /api/orders/*}{@code /items} GLOBAL_BATCHED, {@code GET /api/products} LOCAL.
 * One client address sends {@value ScalingExperiment#LOAD_FACTOR} x R requests a second to
 * each replica on each endpoint, round-robin, for a warm-up of
 * {@value ScalingExperiment#WARM_UP_SECONDS} s that drains the buckets, then a window of
 * {@value ScalingExperiment#WINDOW_SECONDS} s: the requests sent in the window count
 * ({@link ScalingExperiment}). Every bucket is then empty and admits at its refill rate: the
 * GLOBAL and GLOBAL_BATCHED rows R a second for all replicas together, the LOCAL row R a
 * second per replica, 3 x R (each asserted within 5%).
 * {@code scripts/scaling-experiment.sh} runs the same experiment on three sample jars; the
 * figures of both are in {@code docs/scaling.md}.
 */
class ScalingExperimentTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static List<ConfigurableApplicationContext> replicas = List.of();

	@BeforeAll
	static void startReplicas() {
		replicas = ScalingExperiment.startReplicas(database, "--spring.data.redis.url=" + redis.url(),
				"--ratelimit.redis.key-prefix=" + redis.prefix());
	}

	@AfterAll
	static void stopReplicas() {
		replicas.forEach(ConfigurableApplicationContext::close);
		replicas = List.of();
	}

	@Test
	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	void loadWhenRoundRobinOverThreeReplicasThenGlobalAdmitsTheLimitOnceAndLocalThreeTimes() throws Exception {
		ScalingExperiment.policies(database, replicas, Map.of("GET /api/products/*", "GLOBAL", "GET /api/orders/*/items",
				"GLOBAL_BATCHED", "GET /api/products", "LOCAL"));
		double fallbacksBefore = ScalingExperiment.fallbacks(replicas);

		Map<String, Result> results = ScalingExperiment.run(replicas, "/api/products/1", "/api/orders/1/items",
				"/api/products");

		Result global = results.get("/api/products/1");
		Result batched = results.get("/api/orders/1/items");
		Result local = results.get("/api/products");
		ScalingExperiment.print("GLOBAL", global, RPS);
		ScalingExperiment.print("GLOBAL_BATCHED", batched, RPS);
		ScalingExperiment.print("LOCAL", local, REPLICAS * RPS);
		assertThat(ScalingExperiment.fallbacks(replicas) - fallbacksBefore).as("decisions made without Redis").isZero();
		ScalingExperiment.check("GLOBAL", global, RPS);
		ScalingExperiment.check("GLOBAL_BATCHED", batched, RPS);
		ScalingExperiment.check("LOCAL", local, REPLICAS * RPS);
	}

}
