package io.ratelimit.sample.scaling;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisClusterSetup;
import io.ratelimit.autoconfigure.testsupport.RedisSentinelSetup;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.sample.scaling.ScalingExperiment.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;

import static io.ratelimit.sample.scaling.ScalingExperiment.RPS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A7, scaling, on the other Redis topologies: the experiment of
 * {@link ScalingExperimentTest} with its Redis behind Sentinel (a primary, a replica and
 * three sentinels) and in a cluster of three primaries, each a set-up of this class's own
 * on loopback ports ({@code redis-server} must be installed, or the tests are skipped). The
 * GLOBAL and GLOBAL_BATCHED rows must hold the three replicas together at R, within 5%, with
 * no decision made without Redis, as on one server.
 */
@Tag("topologies")
class ScalingTopologiesExperimentTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@Test
	@Timeout(value = 90, unit = TimeUnit.SECONDS)
	void loadWhenRedisBehindSentinelThenGlobalRowsAdmitTheLimitOnce() throws Exception {
		try (RedisSentinelSetup sentinel = RedisSentinelSetup.start()) {
			measure("Sentinel", "--spring.data.redis.sentinel.master=" + RedisSentinelSetup.MASTER,
					"--spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelNodes()));
		}
	}

	@Test
	@Timeout(value = 90, unit = TimeUnit.SECONDS)
	void loadWhenRedisIsAClusterThenGlobalRowsAdmitTheLimitOnce() throws Exception {
		try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
			measure("Cluster", "--spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()));
		}
	}

	private static void measure(String topology, String... redis) throws Exception {
		List<ConfigurableApplicationContext> replicas = ScalingExperiment.startReplicas(database, redis);
		try {
			ScalingExperiment.policies(database, replicas,
					Map.of("GET /api/products/*", "GLOBAL", "GET /api/orders/*/items", "GLOBAL_BATCHED"));
			double fallbacksBefore = ScalingExperiment.fallbacks(replicas);

			Map<String, Result> results = ScalingExperiment.run(replicas, "/api/products/1", "/api/orders/1/items");

			Result global = results.get("/api/products/1");
			Result batched = results.get("/api/orders/1/items");
			ScalingExperiment.print(topology + " GLOBAL", global, RPS);
			ScalingExperiment.print(topology + " GLOBAL_BATCHED", batched, RPS);
			assertThat(ScalingExperiment.fallbacks(replicas) - fallbacksBefore).as("decisions made without Redis")
				.isZero();
			ScalingExperiment.check(topology + " GLOBAL", global, RPS);
			ScalingExperiment.check(topology + " GLOBAL_BATCHED", batched, RPS);
		}
		finally {
			replicas.forEach(ConfigurableApplicationContext::close);
		}
	}

}
