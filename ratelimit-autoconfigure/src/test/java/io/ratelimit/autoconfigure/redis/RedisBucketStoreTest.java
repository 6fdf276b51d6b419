package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BucketStoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared bucket-store contract against a real Redis, with the contract's fake clock
 * as the client clock, plus what only the Redis store promises: keys that name no client
 * and expire once their bucket is full again.
 */
class RedisBucketStoreTest extends BucketStoreContract {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static final AtomicInteger stores = new AtomicInteger();

	private final List<RedisBucketStore> opened = new ArrayList<>();

	private String prefix = "";

	@Override
	protected BucketStore newStore(long maximumEntries) {
		// Each test has keys of its own: the contract reuses key numbers across tests.
		this.prefix = redis.prefix() + stores.incrementAndGet() + ":";
		RedisBucketStore store = new RedisBucketStore(RedisClient.create(redis.url()), this.prefix,
				Duration.ofSeconds(2), maximumEntries, this.time);
		this.opened.add(store);
		return store;
	}

	@AfterEach
	void close() {
		this.opened.forEach(RedisBucketStore::close);
	}

	@Test
	void tryConsumeWhenBucketUsedThenKeyIsPrefixedHashExpiringWhenFull() {
		BucketStore store = newStore(100);
		BucketKey key = new BucketKey(0x0123456789abcdefL, 0x7edcba9876543210L);

		store.tryConsume(key, TEN_PER_SECOND, 20); // empty: full again in 2 s, kept 1 s more

		assertThat(redis.keys(this.prefix)).containsExactly(this.prefix + "0123456789abcdef7edcba9876543210");
		long ttlMillis = redis.execute((commands) -> commands.pttl(this.prefix + "0123456789abcdef7edcba9876543210"));
		assertThat(ttlMillis).isPositive().isGreaterThan(Duration.ofSeconds(2).toMillis()).isLessThanOrEqualTo(Duration.ofSeconds(3).toMillis());
	}

}
