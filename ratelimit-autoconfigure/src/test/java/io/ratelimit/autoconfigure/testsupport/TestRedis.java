package io.ratelimit.autoconfigure.testsupport;

import java.util.UUID;

import com.redis.testcontainers.RedisContainer;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find Redis, in this order:
 * <ol>
 * <li>the environment: {@code RATELIMIT_TEST_REDIS_URL}, e.g. {@code redis://cache:6379};</li>
 * <li>a Testcontainers container, when a Docker engine is available;</li>
 * <li>the local server on {@code 127.0.0.1:6379}.</li>
 * </ol>
 * Each test class works under a key prefix of its own and deletes its keys afterwards, so
 * a shared Redis is left as it was found.
 */
public final class TestRedis {

	private static @Nullable String url;

	private TestRedis() {
	}

	/**
	 * Returns a fresh key prefix on the test Redis. Register the result with
	 * {@code @RegisterExtension} so its keys are deleted when the class is done.
	 * @return the namespace
	 */
	public static RedisNamespace newNamespace() {
		return new RedisNamespace(url(), "ratelimit-test:" + UUID.randomUUID().toString().substring(0, 8) + ":");
	}

	/**
	 * Returns the URL of the test Redis.
	 * @return a {@code redis://} URL
	 */
	public static synchronized String url() {
		if (url == null) {
			url = locate();
		}
		return url;
	}

	private static String locate() {
		String url = System.getenv("RATELIMIT_TEST_REDIS_URL");
		if (url != null && !url.isBlank()) {
			return url;
		}
		if (DockerClientFactory.instance().isDockerAvailable()) {
			RedisContainer container = new RedisContainer(DockerImageName.parse("redis:7-alpine"));
			container.start();
			return container.getRedisURI();
		}
		return "redis://127.0.0.1:6379";
	}

}
