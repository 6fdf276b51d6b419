package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import org.jspecify.annotations.Nullable;

/**
 * Decides two keys every few milliseconds while Redis changes under the store (a primary
 * killed and replaced, a node restarted), and tells apart the decisions Redis made from
 * those the failure mode made, from the first decision after the disruption until Redis
 * decides again. One key has room to spare, so that each of its decisions goes to Redis
 * unless the store is cooling down; the other is watched, to count what the failure mode
 * admits of one client's bucket. The watched key should have tokens left in Redis: the
 * store refuses a key it last saw empty without asking Redis, and such answers are not
 * failures.
 */
final class DecisionsThroughSwitch {

	private static final Duration PACE = Duration.ofMillis(5);

	private static final BucketLimits ROOMY = BucketLimits.of(BigDecimal.valueOf(100_000), BigDecimal.ONE, 1);

	private DecisionsThroughSwitch() {
	}

	/**
	 * Starts {@code disruption} on another thread and decides until Redis has decided
	 * again after the failure mode took over, or until {@code timeout}.
	 * @param store the store under test
	 * @param watched the key watched
	 * @param limits its limits
	 * @param disruption what happens to Redis
	 * @param timeout the longest run
	 * @return what was decided, and when
	 */
	static Result run(FailoverBucketStore store, BucketKey watched, BucketLimits limits, Runnable disruption,
			Duration timeout) throws Exception {
		return run(store, new BucketKey(watched.high() ^ 0x5a5a5a5aL, watched.low() + 1), watched, limits, disruption,
				timeout);
	}

	/**
	 * Runs as {@link #run(FailoverBucketStore, BucketKey, BucketLimits, Runnable, Duration)}
	 * does, with a key of room to spare of the caller's choice, such as one in the slot of a
	 * cluster node about to go.
	 * @param store the store under test
	 * @param traffic the key with room to spare
	 * @param watched the key watched
	 * @param limits its limits
	 * @param disruption what happens to Redis
	 * @param timeout the longest run
	 * @return what was decided, and when
	 */
	static Result run(FailoverBucketStore store, BucketKey traffic, BucketKey watched, BucketLimits limits,
			Runnable disruption, Duration timeout) throws Exception {
		long started = System.nanoTime();
		CompletableFuture<Void> disrupted = CompletableFuture.runAsync(disruption);
		int byFailureMode = 0;
		int watchedAdmittedByFailureMode = 0;
		int watchedAdmittedByRedis = 0;
		long firstFallback = -1;
		long resumed = -1;
		while (System.nanoTime() - started < timeout.toNanos()) {
			long fallbacks = store.fallbacks();
			store.tryConsume(traffic, ROOMY, 1);
			long now = System.nanoTime() - started;
			if (store.fallbacks() == fallbacks && firstFallback >= 0) {
				// Redis decides again; the watched key is left as Redis has it.
				resumed = now;
				break;
			}
			byFailureMode += (store.fallbacks() > fallbacks) ? 1 : 0;
			fallbacks = store.fallbacks();
			Consumption consumption = store.tryConsume(watched, limits, 1);
			if (store.fallbacks() > fallbacks) {
				byFailureMode++;
				watchedAdmittedByFailureMode += consumption.consumed() ? 1 : 0;
			}
			else {
				// Before the disruption reaches the store, or the request that finds Redis back.
				watchedAdmittedByRedis += consumption.consumed() ? 1 : 0;
			}
			if (byFailureMode > 0 && firstFallback < 0) {
				firstFallback = now;
			}
			Thread.sleep(PACE.toMillis());
		}
		disrupted.get();
		return new Result(byFailureMode, watchedAdmittedByFailureMode, watchedAdmittedByRedis,
				(firstFallback < 0) ? null : Duration.ofNanos(firstFallback),
				(resumed < 0) ? null : Duration.ofNanos(resumed));
	}

	/**
	 * What happened.
	 *
	 * @param byFailureMode the decisions the failure mode made, of both keys
	 * @param watchedAdmittedByFailureMode how many of the watched key's it admitted
	 * @param watchedAdmittedByRedis how many of the watched key's Redis admitted during the run
	 * @param firstFallback when the failure mode first decided, from the start
	 * @param resumed when Redis decided again, from the start; {@code null} if it did not
	 */
	record Result(int byFailureMode, int watchedAdmittedByFailureMode, int watchedAdmittedByRedis,
			@Nullable Duration firstFallback, @Nullable Duration resumed) {
	}

}
