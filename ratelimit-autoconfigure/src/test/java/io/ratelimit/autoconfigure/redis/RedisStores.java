package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisURI;
import io.ratelimit.core.TimeSource;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;

/** Redis stores of the tests, built and connected as the auto-configuration builds them. */
final class RedisStores {

	private RedisStores() {
	}

	/**
	 * Returns a connected store, warmed up as at startup.
	 * @param url the Redis URL
	 * @param prefix the key prefix
	 * @param timeout the request timeout
	 * @return the store; close it
	 */
	static RedisBucketStore connect(String url, String prefix, Duration timeout) {
		RedisTarget target = new RedisTarget(RedisTarget.Topology.STANDALONE, List.of(RedisURI.create(url)), null,
				null);
		RedisBucketStore redis = new RedisBucketStore(RedisClients.connector(target, timeout), prefix, timeout,
				10_000, TimeSource.system());
		assertThat(redis.connect(Duration.ofSeconds(5)).connected()).isTrue();
		return redis;
	}

	/**
	 * Parses a node as Spring Boot parses {@code spring.data.redis.*.nodes}.
	 * @param hostAndPort {@code host:port}
	 * @return the node
	 */
	static DataRedisConnectionDetails.Node node(String hostAndPort) {
		int colon = hostAndPort.lastIndexOf(':');
		return new DataRedisConnectionDetails.Node(hostAndPort.substring(0, colon),
				Integer.parseInt(hostAndPort.substring(colon + 1)));
	}

}
