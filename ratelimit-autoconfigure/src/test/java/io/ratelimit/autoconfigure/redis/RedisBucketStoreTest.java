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
import io.ratelimit.core.bucket.Consumption;
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

	@Test
	void tryConsumeWhenAnotherReplicaTookTheTokensSinceThenRefused() {
		BucketStore replicaA = newStore(100);
		BucketStore replicaB = replicaOf(replicaA);
		BucketKey key = new BucketKey(5, 5);

		assertThat(replicaA.tryConsume(key, TEN_PER_SECOND, 1).consumed()).isTrue(); // A saw 19 left
		assertThat(replicaB.tryConsume(key, TEN_PER_SECOND, 19).consumed()).isTrue();

		Consumption refused = replicaA.tryConsume(key, TEN_PER_SECOND, 1);
		assertThat(refused.consumed()).isFalse();
		assertThat(refused.nanosToWait()).isEqualTo(Duration.ofMillis(100).toNanos());
	}

	@Test
	void tryConsumeWhenReplicasAlternateThenAdmitExactlyWhatOneBucketHolds() {
		BucketStore replicaA = newStore(100);
		BucketStore replicaB = replicaOf(replicaA);
		BucketKey key = new BucketKey(6, 6);
		int admitted = 0;
		for (int step = 0; step < 200; step++) { // 10 s, a request every 50 ms to each, 20 rps against 10
			admitted += replicaA.tryConsume(key, TEN_PER_SECOND, 1).consumed() ? 1 : 0;
			admitted += replicaB.tryConsume(key, TEN_PER_SECOND, 1).consumed() ? 1 : 0;
			this.time.advanceMillis(50);
		}
		assertThat(admitted).isEqualTo(20 + 10 * 10 - 1); // full at first; the last refill is 50 ms short
	}

	@Test
	void refundWhenMadeByAnotherReplicaThenNextWriteSeesIt() {
		BucketStore replicaA = newStore(100);
		BucketStore replicaB = replicaOf(replicaA);
		BucketKey key = new BucketKey(7, 7);
		assertThat(replicaA.tryConsume(key, TEN_PER_SECOND, 20).consumed()).isTrue();

		replicaB.refund(key, TEN_PER_SECOND, 5);

		assertThat(replicaB.tryConsume(key, TEN_PER_SECOND, 5).consumed()).isTrue();
	}

	/**
	 * Returns a second store on the keys of {@code store}, as another replica would have.
	 */
	private BucketStore replicaOf(BucketStore store) {
		RedisBucketStore replica = new RedisBucketStore(RedisClient.create(redis.url()), this.prefix,
				Duration.ofSeconds(2), 100, this.time);
		this.opened.add(replica);
		return replica;
	}

}
