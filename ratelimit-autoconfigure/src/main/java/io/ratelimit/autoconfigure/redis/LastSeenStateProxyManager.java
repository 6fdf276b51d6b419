package io.ratelimit.autoconfigure.redis;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.generic.compare_and_swap.AsyncCompareAndSwapOperation;
import io.github.bucket4j.distributed.proxy.generic.compare_and_swap.CompareAndSwapOperation;
import io.github.bucket4j.distributed.remote.MutableBucketEntry;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import org.jspecify.annotations.Nullable;

/**
 * Bucket4j's compare-and-swap proxy manager for Lettuce that starts each operation from the
 * state this process last saw of the bucket instead of reading it from Redis first.
 * <p>
 * Bucket4j's compare-and-swap costs two round trips per decision: {@code GET} the state,
 * then a script that writes the new state only if the old one is still there. When this
 * process was the last to write a bucket, the state it wrote is the state in Redis, so the
 * {@code GET} is skipped: the script alone decides, one round trip. When another replica
 * wrote since, the script finds different bytes, refuses, and answers with those bytes
 * ({@link StateSwap}); Bucket4j's retry starts from them without a {@code GET}. A guess can
 * cost a round trip, never correctness: only the script writes, and it writes only over the
 * bytes it was given.
 * <p>
 * A request that the last-seen state refuses is refused without any round trip (Bucket4j
 * writes nothing when it consumes nothing). That is exact too: every write after the one
 * seen could only have taken tokens, so a bucket that was too empty then is too empty now.
 * The exception is a refund made by another replica since, which this process sees at its
 * next write: a client may be refused by its own refunded tokens for up to one refill of
 * them.
 * <p>
 * A state is forgotten when its key expires in Redis (it is full then, and a guess would
 * only fail), when a write fails or is refused, and beyond the most recent
 * {@code maximumStates}. That a bucket does not exist is remembered too, for a second:
 * Bucket4j asks twice when it creates a bucket, and the second answer is known.
 * <p>
 * Asynchronous operations start from the last-seen state the same way. A manager over a
 * {@link CommandPipeline pipelined} connection shares the states of the manager of the
 * request path, and tells the pipeline of every command it issues.
 */
final class LastSeenStateProxyManager extends LettuceBasedProxyManager<byte[]> {

	private final ExpirationAfterWriteStrategy expiration;

	private final StateSwap swap;

	private final Cache<ByteBuffer, SeenState> seen;

	private final LongAdder answers = new LongAdder();

	/** When a call for a key last failed, by {@link System#nanoTime()}. */
	private final Cache<ByteBuffer, Long> failures;

	/** When the current thread's request began, by {@link System#nanoTime()}; 0 outside one. */
	private final ThreadLocal<long[]> requestStart = ThreadLocal.withInitial(() -> new long[1]);

	private final Runnable issued;

	private final Runnable issuedUrgently;

	/**
	 * Creates a proxy manager.
	 * @param builder Bucket4j's builder, configured with {@code expiration} among the rest
	 * @param swap the compare-and-swap over the builder's connection
	 * @param expiration the expiry of the builder, which also bounds how long a seen state
	 * is kept
	 * @param maximumStates the most bucket states kept
	 */
	LastSeenStateProxyManager(Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> builder, StateSwap swap,
			ExpirationAfterWriteStrategy expiration, long maximumStates) {
		super(builder);
		this.swap = swap;
		this.expiration = expiration;
		this.seen = Caffeine.newBuilder()
			.maximumSize(maximumStates)
			.expireAfter(Expiry.writing((ByteBuffer key, SeenState state) -> state.keptFor()))
			.build();
		// Only a request that began before the failure is cut short, so a minute is plenty.
		this.failures = Caffeine.newBuilder().maximumSize(maximumStates).expireAfterWrite(Duration.ofMinutes(1)).build();
		this.issued = () -> {
		};
		this.issuedUrgently = this.issued;
	}

	/**
	 * Creates a proxy manager that shares the states another one saw.
	 * @param builder Bucket4j's builder, configured as the other's
	 * @param swap the compare-and-swap over the builder's connection
	 * @param sharing the manager whose states this one reads and writes
	 * @param issued told of each command issued by an asynchronous operation, after it is
	 * @param issuedUrgently told instead when the operation has used a quarter of its
	 * timeout: replicas contending for one hot key lose swap after swap, and a retry that
	 * waited for company each time would run out of time
	 */
	LastSeenStateProxyManager(Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> builder, StateSwap swap,
			LastSeenStateProxyManager sharing, Runnable issued, Runnable issuedUrgently) {
		super(builder);
		this.swap = swap;
		this.expiration = sharing.expiration;
		this.seen = sharing.seen;
		this.failures = sharing.failures;
		this.issued = issued;
		this.issuedUrgently = issuedUrgently;
	}

	/**
	 * Returns the answers Redis has given to this manager's operations: a state read or
	 * a swap that returned, never a state remembered.
	 * @return the count
	 */
	long answers() {
		return this.answers.sum();
	}

	/**
	 * Marks the start of a request on this thread, for {@link #endRequest()} to clear.
	 * Bucket4j combines concurrent requests of a key and sends the combination when the call
	 * in flight ends: requests that waited behind a call of their key that failed fail at
	 * once then, instead of waiting for a timeout of their own (a hung Redis would otherwise
	 * cost them two).
	 */
	void beginRequest() {
		this.requestStart.get()[0] = System.nanoTime();
	}

	void endRequest() {
		this.requestStart.get()[0] = 0;
	}

	private void checkNoFailureWhileWaiting(ByteBuffer key) {
		long started = this.requestStart.get()[0];
		Long failed = (started != 0) ? this.failures.getIfPresent(key) : null;
		if (failed != null && failed - started > 0) {
			throw new IllegalStateException("Redis failed to answer a call of this key that the request waited behind");
		}
	}

	private <T> T failed(ByteBuffer key, RuntimeException ex) {
		this.failures.put(key, System.nanoTime());
		throw ex;
	}

	@Override
	protected CompareAndSwapOperation beginCompareAndSwapOperation(byte[] key) {
		return new FromLastSeenState(ByteBuffer.wrap(key), super.beginCompareAndSwapOperation(key));
	}

	@Override
	protected AsyncCompareAndSwapOperation beginAsyncCompareAndSwapOperation(byte[] key) {
		return new AsyncFromLastSeenState(ByteBuffer.wrap(key), super.beginAsyncCompareAndSwapOperation(key));
	}

	private long ttlMillis(RemoteBucketState state) {
		return this.expiration.calculateTimeToLiveMillis(state, currentTimeNanos());
	}

	/** Remembers a state Redis answered with, or that there was no bucket. */
	private Optional<byte[]> read(ByteBuffer key, byte @Nullable [] bytes) {
		if (bytes != null) {
			saw(key, bytes, new MutableBucketEntry(bytes).get());
		}
		else {
			// Bucket4j answers "no bucket" and comes straight back to create it.
			this.seen.put(key, SeenState.ABSENT);
		}
		return Optional.ofNullable(bytes);
	}

	/** Remembers what a swap left in Redis: the state it wrote, or the state that won. */
	private void swapAnswered(ByteBuffer key, StateSwap.Answer answer, byte[] newData, RemoteBucketState newState) {
		this.answers.increment();
		if (answer.swapped()) {
			saw(key, newData, newState);
		}
		else {
			read(key, answer.current());
		}
	}

	private void saw(ByteBuffer key, byte[] bytes, RemoteBucketState state) {
		long ttlMillis = this.expiration.calculateTimeToLiveMillis(state, currentTimeNanos());
		if (ttlMillis > 0) {
			this.seen.put(key, new SeenState(bytes, Duration.ofMillis(ttlMillis)));
		}
		else {
			this.seen.invalidate(key);
		}
	}

	/**
	 * One compare-and-swap operation, over the retries of one request: the first read is the
	 * last-seen state if there is one, a read after a lost swap is the state the swap found,
	 * any other goes to Redis.
	 */
	private final class FromLastSeenState implements CompareAndSwapOperation {

		private final ByteBuffer key;

		private final CompareAndSwapOperation redis;

		private boolean guessed;

		/** What the last lost swap found in Redis, for the retry to start from. */
		private StateSwap.@Nullable Answer lost;

		FromLastSeenState(ByteBuffer key, CompareAndSwapOperation redis) {
			this.key = key;
			this.redis = redis;
		}

		@Override
		public Optional<byte[]> getStateData(Optional<Long> timeoutNanos) {
			if (!this.guessed) {
				this.guessed = true;
				SeenState state = LastSeenStateProxyManager.this.seen.getIfPresent(this.key);
				if (state != null) {
					return Optional.ofNullable(state.bytes());
				}
			}
			StateSwap.Answer lost = this.lost;
			if (lost != null) {
				this.lost = null;
				return Optional.ofNullable(lost.current());
			}
			checkNoFailureWhileWaiting(this.key);
			try {
				Optional<byte[]> data = this.redis.getStateData(timeoutNanos);
				LastSeenStateProxyManager.this.answers.increment();
				return read(this.key, data.orElse(null));
			}
			catch (RuntimeException ex) {
				LastSeenStateProxyManager.this.seen.invalidate(this.key);
				return failed(this.key, ex);
			}
		}

		@Override
		public boolean compareAndSwap(byte[] originalData, byte[] newData, RemoteBucketState newState,
				Optional<Long> timeoutNanos) {
			// Forgotten first: if the write times out, nobody knows what Redis holds.
			LastSeenStateProxyManager.this.seen.invalidate(this.key);
			checkNoFailureWhileWaiting(this.key);
			StateSwap.Answer answer;
			try {
				answer = LastSeenStateProxyManager.this.swap.swapAndWait(this.key.array(), originalData, newData,
						ttlMillis(newState), timeoutNanos);
			}
			catch (RuntimeException ex) {
				return failed(this.key, ex);
			}
			swapAnswered(this.key, answer, newData, newState);
			if (!answer.swapped()) {
				this.lost = answer;
			}
			return answer.swapped();
		}

	}

	/**
	 * {@link FromLastSeenState} without waiting. A retry after a lost swap waits for the next
	 * flush like any command, and since a lost swap needs no read, it is one round trip;
	 * once the operation has used a quarter of its timeout (replicas contending for a hot
	 * key), its commands go out at once. Sending every retry at once made most of the
	 * pipeline's writes over many keys 40 ms from Redis.
	 */
	private final class AsyncFromLastSeenState implements AsyncCompareAndSwapOperation {

		private final ByteBuffer key;

		private final AsyncCompareAndSwapOperation redis;

		private final long started = System.nanoTime();

		private boolean guessed;

		/** What the last lost swap found in Redis, for the retry to start from. */
		private volatile StateSwap.@Nullable Answer lost;

		AsyncFromLastSeenState(ByteBuffer key, AsyncCompareAndSwapOperation redis) {
			this.key = key;
			this.redis = redis;
		}

		@Override
		public CompletableFuture<Optional<byte[]>> getStateData(Optional<Long> timeoutNanos) {
			if (!this.guessed) {
				this.guessed = true;
				SeenState state = LastSeenStateProxyManager.this.seen.getIfPresent(this.key);
				if (state != null) {
					return CompletableFuture.completedFuture(Optional.ofNullable(state.bytes()));
				}
			}
			StateSwap.Answer lost = this.lost;
			if (lost != null) {
				this.lost = null;
				return CompletableFuture.completedFuture(Optional.ofNullable(lost.current()));
			}
			return issue(() -> this.redis.getStateData(timeoutNanos), timeoutNanos).whenComplete((data, failure) -> {
				if (failure != null) {
					LastSeenStateProxyManager.this.seen.invalidate(this.key);
					return;
				}
				LastSeenStateProxyManager.this.answers.increment();
				read(this.key, data.orElse(null));
			});
		}

		@Override
		public CompletableFuture<Boolean> compareAndSwap(byte[] originalData, byte[] newData,
				RemoteBucketState newState, Optional<Long> timeoutNanos) {
			LastSeenStateProxyManager.this.seen.invalidate(this.key);
			return issue(() -> LastSeenStateProxyManager.this.swap.swap(this.key.array(), originalData, newData,
					ttlMillis(newState), timeoutNanos), timeoutNanos)
				.thenApply((answer) -> {
					swapAnswered(this.key, answer, newData, newState);
					if (!answer.swapped()) {
						this.lost = answer;
					}
					return answer.swapped();
				});
		}

		private <T> CompletableFuture<T> issue(Supplier<CompletableFuture<T>> command, Optional<Long> timeoutNanos) {
			CompletableFuture<T> answer;
			try {
				answer = command.get();
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
			boolean late = timeoutNanos.isPresent() && System.nanoTime() - this.started > timeoutNanos.get() / 4;
			(late ? LastSeenStateProxyManager.this.issuedUrgently : LastSeenStateProxyManager.this.issued).run();
			return answer;
		}

	}

	/**
	 * The bytes of a bucket's state as last read or written ({@code null} if there was no
	 * bucket), and how long to keep them: a little less than Redis keeps them, so that a
	 * guess never races the key's expiry.
	 */
	private record SeenState(byte @Nullable [] bytes, Duration keptFor) {

		private static final Duration MARGIN = Duration.ofMillis(500);

		/** No bucket: remembered for the creation that follows at once. */
		static final SeenState ABSENT = new SeenState(null, Duration.ofSeconds(1));

		SeenState(byte @Nullable [] bytes, Duration keptFor) {
			this.bytes = bytes;
			this.keptFor = keptFor.compareTo(MARGIN) > 0 ? keptFor.minus(MARGIN) : Duration.ZERO;
		}

	}

}
