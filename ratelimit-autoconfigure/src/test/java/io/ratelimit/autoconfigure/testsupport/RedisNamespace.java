package io.ratelimit.autoconfigure.testsupport;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The keys of one test class in the test Redis: everything under a random prefix. As a
 * JUnit extension it deletes them when the class's extension context closes, after Spring
 * has closed the class's application contexts.
 */
public final class RedisNamespace implements BeforeAllCallback {

	private final String url;

	private final String prefix;

	RedisNamespace(String url, String prefix) {
		this.url = url;
		this.prefix = prefix;
	}

	public String url() {
		return this.url;
	}

	/**
	 * Returns the prefix of every key of this class.
	 * @return the prefix, ending in {@code :}
	 */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * Points the limiter at this Redis and prefix.
	 * @param registry the registry of a {@code @DynamicPropertySource} method
	 */
	public void register(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> this.url);
		registry.add("ratelimit.redis.key-prefix", () -> this.prefix);
	}

	/**
	 * Returns the keys under a prefix, which must start with this namespace's.
	 * @param prefix the prefix
	 * @return the keys
	 */
	public List<String> keys(String prefix) {
		if (!prefix.startsWith(this.prefix)) {
			throw new IllegalArgumentException("'" + prefix + "' is outside this namespace");
		}
		RedisClient client = RedisClient.create(this.url);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			List<String> keys = new ArrayList<>();
			ScanCursor cursor = ScanCursor.INITIAL;
			do {
				KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(1000));
				keys.addAll(page.getKeys());
				cursor = page;
			}
			while (!cursor.isFinished());
			return keys;
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Runs a command against the test Redis.
	 * @param <T> the result type
	 * @param command the command
	 * @return its result
	 */
	public <T> T execute(java.util.function.Function<RedisCommands<String, String>, T> command) {
		RedisClient client = RedisClient.create(this.url);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return command.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Deletes every key of this namespace.
	 */
	public void deleteKeys() {
		List<String> keys = keys(this.prefix);
		if (!keys.isEmpty()) {
			execute((redis) -> redis.del(keys.toArray(String[]::new)));
		}
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		context.getStore(ExtensionContext.Namespace.create(RedisNamespace.class))
			.getOrComputeIfAbsent(this.prefix, (prefix) -> (ExtensionContext.Store.CloseableResource) this::deleteKeys);
	}

}
