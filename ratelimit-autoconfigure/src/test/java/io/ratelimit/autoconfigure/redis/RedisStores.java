package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.ratelimit.core.TimeSource;

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
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
		RedisURI uri = RedisURI.create(url);
		uri.setTimeout(timeout);
		RedisClient client = RedisClient.create(resources, uri);
		client.setOptions(ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
			.timeoutOptions(TimeoutOptions.enabled(timeout))
			.build());
		RedisBucketStore redis = new RedisBucketStore(client, prefix, timeout, 10_000, TimeSource.system());
		assertThat(redis.connect(Duration.ofSeconds(5))).isTrue();
		return redis;
	}

}
