package io.ratelimit.core.bucket;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.MathType;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The per-process {@link BucketStore}: Bucket4j buckets in a bounded Caffeine cache.
 * <p>
 * Two bounds keep memory flat whatever keys clients invent. A maximum number of entries,
 * enforced with Caffeine's frequency-based admission, so a flood of one-off keys evicts
 * mostly itself and a frequently used bucket keeps its state (a client cannot reset its own
 * bucket by churning others). And idle expiry: a bucket is dropped once it has been idle for
 * as long as it takes to refill completely, when forgetting it loses nothing.
 * <p>
 * A key gets its bucket only with a request made before its first one has been refilled:
 * the first is remembered by a {@link Doorkeeper} and answered as a full bucket answers,
 * and the bucket created next is charged for it. Clients that make one request each (an
 * attacker inventing an address for every request, or a crawler passing by), or that keep
 * within their limit at an even pace, cost a slot of the doorkeeper instead of a bucket, and
 * the buckets of the clients that need them are not pushed out by them.
 * <p>
 * Each replica has its own buckets: k replicas admit up to k times a limit.
 * <p>
 * A bucket is Bucket4j's {@link BucketState}, driven the way Bucket4j's own
 * {@code ThreadUnsafeBucket} drives it, under the lock of its entry. A Bucket4j
 * {@code Bucket} object around it would cost 144 more bytes per entry (five API views it
 * creates eagerly, and the lock-free variant's atomic reference) and a copy of the state
 * on every consume; at 100,000 entries that is most of the store's memory.
 * <p>
 * A bucket is found in a small direct-mapped table of recently used buckets, else with a
 * quiet read of the cache, which costs a map lookup and a reading of the clock for the
 * entry's expiry. A bucket from the table is charged only while its last recorded access
 * surely keeps it in the cache and the cache has not let it go (the eviction listener marks
 * it), so that no charge is made to a bucket the cache has dropped, to be lost with it.
 * Being marked costs a bucket 8 bytes. An access is recorded with Caffeine, for its
 * frequency sketch and the idle expiry, once in {@value #ACCESSES_PER_RECORDING} accesses
 * of a bucket, and whenever the bucket would otherwise be full later than its last recorded
 * access keeps it (see {@link UntilFull}). Recording every access fills Caffeine's read
 * buffers, which the calling thread drains about once every sixteen calls, and those drains
 * were nearly all of the slowest percent of consumes over many keys. A bucket in use still
 * counts as frequently used: the sketch counts up to 15 and halves its counts as it ages.
 */
public final class LocalBucketStore implements BucketStore {

	/** Slots of the table of recently used buckets, a power of two. */
	static final int RECENT_BUCKETS = 4096;

	/** The most accesses of a bucket before one is recorded, whatever its state. */
	static final int ACCESSES_PER_RECORDING = 64;

	/** How long past the time it takes to refill completely a recorded access keeps a bucket. */
	private static final long EXPIRY_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(2);

	/** Caffeine skips an expiry update that moves the deadline by no more than this. */
	private static final long CAFFEINE_EXPIRY_TOLERANCE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Cache<BucketKey, LocalBucket> buckets;

	private final Policy<BucketKey, LocalBucket> policy;

	private final TimeSource time;

	private final Doorkeeper doorkeeper;

	private final LongAdder evictions = new LongAdder();

	/*
	 * Read and written without synchronization: an entry is immutable (final fields, so
	 * safely published even through a race, the bucket's state included), and a lost or
	 * overwritten entry only costs a lookup in the cache.
	 */
	private final RecentBucket[] recent = new RecentBucket[RECENT_BUCKETS];

	private LocalBucketStore(long maximumEntries, TimeSource time) {
		this.time = time;
		this.buckets = Caffeine.newBuilder()
			.maximumSize(maximumEntries)
			.expireAfter(new UntilFull())
			.ticker(time::nanoTime)
			// Maintenance on the calling thread keeps the bound exact instead of eventually applied.
			.executor(Runnable::run)
			// Counted here rather than with Caffeine's statistics, which would read the clock
			// twice around the creation of every bucket to time it.
			.evictionListener((key, bucket, cause) -> {
				this.evictions.increment();
				bucket.retire();
			})
			.build();
		this.policy = this.buckets.policy();
		this.doorkeeper = new Doorkeeper(maximumEntries, time.nanoTime());
	}

	/**
	 * Creates a store on the system clock.
	 * @param maximumEntries the most buckets held at once
	 * @return the store
	 */
	public static LocalBucketStore create(long maximumEntries) {
		return create(maximumEntries, TimeSource.system());
	}

	/**
	 * Creates a store.
	 * @param maximumEntries the most buckets held at once
	 * @param time the clock buckets refill by
	 * @return the store
	 */
	public static LocalBucketStore create(long maximumEntries, TimeSource time) {
		if (maximumEntries < 1) {
			throw new IllegalArgumentException("The maximum number of buckets must be positive, but was " + maximumEntries);
		}
		return new LocalBucketStore(maximumEntries, Objects.requireNonNull(time, "time must not be null"));
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		return tryConsume(key, limits, tokens, this.time.nanoTime());
	}

	/**
	 * Takes tokens as {@link #tryConsume(BucketKey, BucketLimits, long)} does, at a reading
	 * of this store's clock taken by the caller, so that the buckets of one decision share
	 * one reading instead of reading the clock each.
	 * <p>
	 * A reading older than a bucket's state (another request charged it meanwhile, with a
	 * later one) neither refills it nor is waited for: Bucket4j refills forward only, so the
	 * bucket answers as of its latest refill. Should the bucket's lock be held by another
	 * request, the clock is read again once the lock is taken, so that a reading never ages
	 * by more than the caller's own work since it was taken.
	 * @param key the bucket key
	 * @param limits the bucket shape
	 * @param tokens the tokens to take, at least 1
	 * @param nowNanos a reading of {@link #nanoTime()}, taken just before
	 * @return the outcome
	 */
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens, long nowNanos) {
		if (tokens < 1) {
			throw new IllegalArgumentException("At least one token must be consumed, but was " + tokens);
		}
		long units = Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN);
		int slot = (int) key.low() & (RECENT_BUCKETS - 1);
		RecentBucket recent = this.recent[slot];
		if (recent != null && recent.key().equals(key)) {
			Consumption consumption = recent.bucket().tryConsume(limits, units, nowNanos, this.time, key, this.buckets,
					true);
			if (consumption != null) {
				return consumption;
			}
		}
		LocalBucket bucket = this.policy.getIfPresentQuietly(key);
		if (bucket == null) {
			bucket = enter(key, limits, units);
			if (bucket == null) {
				// The key's first request, answered as a new, full bucket would.
				return new Consumption(true, limits.capacityUnits() - units, 0);
			}
		}
		this.recent[slot] = new RecentBucket(key, bucket);
		return bucket.tryConsume(limits, units, nowNanos, this.time, key, this.buckets, false);
	}

	/**
	 * Returns a reading of the clock this store's buckets refill by, for
	 * {@link #tryConsume(BucketKey, BucketLimits, long, long)}.
	 * @return the current monotonic time in nanoseconds
	 */
	public long nanoTime() {
		return this.time.nanoTime();
	}

	/**
	 * Lets a key without a bucket in through the doorkeeper. It runs under the lock of the
	 * key's cache entry, as does every creation of the key's bucket, so that a first request
	 * is recorded only while the key has no bucket, and charged to the very bucket created
	 * next, before anyone takes from it.
	 * @return the key's bucket, or {@code null} if this is the key's first request
	 */
	private LocalBucket enter(BucketKey key, BucketLimits limits, long units) {
		return this.buckets.get(key, (absent) -> newBucket(key, limits, units));
	}

	private LocalBucket newBucket(BucketKey key, BucketLimits limits, long units) {
		// Read under the lock, so that the requests of one key reach the doorkeeper in time order.
		long now = this.time.nanoTime();
		long tokens = units / BucketLimits.UNITS_PER_TOKEN;
		// A request too heavy for a full bucket (which refuses it), or one the doorkeeper's
		// slots cannot hold, gets its bucket at once.
		boolean throughDoorkeeper = units <= limits.capacityUnits() && tokens <= Doorkeeper.MAXIMUM_TOKENS
				&& limits.refillPeriodNanos() <= Doorkeeper.MAXIMUM_REFILL_PERIOD_NANOS;
		long firstRequest = throughDoorkeeper ? this.doorkeeper.enter(key, tokens, now, limits)
				: this.doorkeeper.takeFirstRequest(key);
		if (firstRequest == Doorkeeper.FIRST_REQUEST) {
			return null;
		}
		if (firstRequest == Doorkeeper.NOTHING_TO_CHARGE) {
			return new LocalBucket(limits, now);
		}
		LocalBucket bucket = new LocalBucket(limits, this.doorkeeper.nanosOf(firstRequest, now));
		bucket.consumeAtCreation(
				Math.min(Doorkeeper.tokensOf(firstRequest) * BucketLimits.UNITS_PER_TOKEN, limits.capacityUnits()));
		return bucket;
	}

	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens < 1) {
			return;
		}
		// Without a bucket, the tokens were the key's first request's: given back under the
		// lock of the key's entry, so that no bucket is charged for them meanwhile. A bucket
		// gone since was full again, with nothing to give back.
		LocalBucket bucket = this.buckets.get(key, (absent) -> {
			this.doorkeeper.refund(key, tokens);
			return null;
		});
		if (bucket != null) {
			bucket.refund(Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN), this.time);
		}
	}

	@Override
	public BucketStoreStats stats() {
		this.buckets.cleanUp();
		return new BucketStoreStats(this.buckets.estimatedSize(), this.evictions.sum());
	}

	/**
	 * A bucket's state and the limits it currently has. Every method holds the bucket's
	 * lock: the state is updated in place. A consume may bring a reading of the clock taken
	 * before the lock (one reading for all the buckets of a decision); after waiting for the
	 * lock it reads the clock again. A reading older than the state only ages the decision by
	 * the caller's own work since: Bucket4j refills forward only.
	 * <p>
	 * The bucket is its own lock, a mutex on {@link AbstractQueuedSynchronizer} rather than
	 * a monitor: on JDK 21 to 23 a virtual thread waiting for a monitor pins its carrier
	 * thread, while one parked on this lock lets the carrier go. Being the lock costs a bucket
	 * 16 bytes more than a monitor, where holding a {@code ReentrantLock} would cost 40 (a
	 * store of 100,000 buckets, measured). The lock is not reentrant: nothing under it calls
	 * back into the bucket.
	 */
	private static final class LocalBucket extends AbstractQueuedSynchronizer {

		private BucketState state;

		// Volatile for the expiry, which reads it outside the lock.
		private volatile BucketLimits limits;

		// Until when the last recorded access surely keeps the bucket in the cache.
		private long keptUntilNanos;

		private int unrecordedAccesses;

		// Set once the cache has let the bucket go, for whoever still holds it from the table of recent buckets.
		private volatile boolean retired;

		LocalBucket(BucketLimits limits, long nowNanos) {
			this.limits = limits;
			this.state = BucketState.createInitialState(limits.configuration(), MathType.INTEGER_64_BITS, nowNanos);
			this.keptUntilNanos = keptUntil(limits, nowNanos);
		}

		@Override
		protected boolean tryAcquire(int ignored) {
			return compareAndSetState(0, 1);
		}

		@Override
		protected boolean tryRelease(int ignored) {
			setState(0);
			return true;
		}

		private void lock() {
			acquire(1);
		}

		private void unlock() {
			release(1);
		}

		/**
		 * Consumes, then has the cache record the access if it is due: the bucket is full
		 * only after its last recorded access stops keeping it, or it is the
		 * {@value #ACCESSES_PER_RECORDING}th access since. Recording under the lock keeps
		 * the decision and the record together.
		 */
		@Nullable Consumption tryConsume(BucketLimits wanted, long units, long nowNanos, TimeSource time, BucketKey key,
				Cache<BucketKey, LocalBucket> cache, boolean onlyIfKept) {
			long now = nowNanos;
			if (!tryAcquire(1)) {
				// Another request had the bucket: its reading may be later than ours by the wait.
				acquire(1);
				now = time.nanoTime();
			}
			try {
				if (onlyIfKept && (this.retired || now - this.keptUntilNanos >= 0)) {
					return null;
				}
				Consumption consumption = consume(wanted, units, now);
				if (++this.unrecordedAccesses >= ACCESSES_PER_RECORDING || isFullOnlyAfterKept(now)) {
					cache.getIfPresent(key);
					this.unrecordedAccesses = 0;
					this.keptUntilNanos = keptUntil(this.limits, now);
				}
				return consumption;
			}
			finally {
				unlock();
			}
		}

		/**
		 * Whether the bucket will be full only after the last recorded access stops keeping
		 * it. A bucket refills completely within its refill period, so while that period from
		 * now is still kept, the exact time need not be computed.
		 */
		private boolean isFullOnlyAfterKept(long now) {
			return now + this.limits.refillPeriodNanos() - this.keptUntilNanos > 0
					&& now + this.state.calculateFullRefillingTime(now) - this.keptUntilNanos > 0;
		}

		private Consumption consume(BucketLimits wanted, long units, long now) {
			this.state.refillAllBandwidth(now);
			if (!wanted.equals(this.limits)) {
				// The policy changed: keep the tokens, capped at the new capacity.
				this.state = this.state.replaceConfiguration(wanted.configuration(), TokensInheritanceStrategy.AS_IS,
						now);
				this.limits = wanted;
			}
			long available = this.state.getAvailableTokens();
			if (units > available) {
				long nanosToWait = this.state.calculateDelayNanosAfterWillBePossibleToConsume(units, now, true);
				return new Consumption(false, Math.max(0, available), nanosToWait);
			}
			this.state.consume(units);
			return new Consumption(true, available - units, 0);
		}

		/**
		 * Takes the units of the key's first request from the bucket that has just been
		 * created, full, at the time of that request, before it is shared.
		 */
		void consumeAtCreation(long units) {
			this.state.consume(units);
		}

		void retire() {
			this.retired = true;
		}

		void refund(long units, TimeSource time) {
			lock();
			try {
				this.state.refillAllBandwidth(time.nanoTime());
				// addTokens caps at capacity, so a refund can never create tokens.
				this.state.addTokens(units);
			}
			finally {
				unlock();
			}
		}

		/**
		 * The time until which an access recorded now surely keeps the bucket: its expiry,
		 * less the update Caffeine may skip.
		 */
		private static long keptUntil(BucketLimits limits, long nowNanos) {
			return nowNanos + UntilFull.untilFull(limits) - CAFFEINE_EXPIRY_TOLERANCE_NANOS;
		}

	}

	/**
	 * Expires a bucket once it has been idle long enough to be full again: the time it takes
	 * to refill completely, plus a margin.
	 * <p>
	 * The margin covers Caffeine skipping an expiry update that moves the deadline by no
	 * more than one second, so that a deadline may lag a second behind the last recorded
	 * access; the bucket records an access whenever it would be full later than that
	 * (see {@link LocalBucket}). Expiring a bucket before it is full would hand a client a
	 * full bucket it has not earned.
	 */
	private static final class UntilFull implements Expiry<BucketKey, LocalBucket> {

		@Override
		public long expireAfterCreate(BucketKey key, LocalBucket bucket, long currentTime) {
			return untilFull(bucket.limits);
		}

		@Override
		public long expireAfterUpdate(BucketKey key, LocalBucket bucket, long currentTime, long currentDuration) {
			return untilFull(bucket.limits);
		}

		@Override
		public long expireAfterRead(BucketKey key, LocalBucket bucket, long currentTime, long currentDuration) {
			return untilFull(bucket.limits);
		}

		static long untilFull(BucketLimits limits) {
			return limits.refillPeriodNanos() + EXPIRY_MARGIN_NANOS;
		}

	}

	/**
	 * A recently used bucket and its key. The cache's quiet read of a bucket costs a map
	 * lookup and a reading of the clock for its expiry; a bucket found here is taken without
	 * either while its last recorded access surely keeps it in the cache and the cache has
	 * not let it go, which the bucket checks under its lock.
	 */
	private record RecentBucket(BucketKey key, LocalBucket bucket) {
	}

}
