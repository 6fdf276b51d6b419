package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.concurrency.Permit;
import io.ratelimit.core.concurrency.PermitStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The Redis permit store behind a circuit breaker, with the failure mode of the global
 * buckets ({@code ratelimit.redis.failure-mode}). While Redis answers, permits are its own.
 * When taking one fails (Redis down, or slower than {@code ratelimit.redis.timeout}), the
 * request is decided by the failure mode instead: {@link RedisFailureMode#LOCAL} permits of
 * this replica at the same limit, {@link RedisFailureMode#OPEN} admission without a permit,
 * {@link RedisFailureMode#CLOSED} refusal (429, as for a full limit). After
 * {@code failureThreshold} consecutive failures Redis is left alone for the cooldown, so an
 * outage or a hang does not add the timeout to every request; then the next request tries
 * again, and the first success ends the outage.
 */
final class FailoverPermitStore implements PermitStore {

	private static final Log logger = LogFactory.getLog(FailoverPermitStore.class);

	/** What {@link RedisFailureMode#OPEN} admits with: a permit that holds nothing. */
	private static final Permit NOTHING_HELD = new Permit() {

		@Override
		public long remaining() {
			return 0;
		}

		@Override
		public void release() {
		}

	};

	private final PermitStore remote;

	private final RedisFailureMode mode;

	private final PermitStore local;

	private final int failureThreshold;

	private final long cooldownNanos;

	private final TimeSource time;

	private final AtomicInteger consecutiveFailures = new AtomicInteger();

	private final LongAdder failures = new LongAdder();

	private final LongAdder fallbacks = new LongAdder();

	private volatile long coolingDownUntil;

	FailoverPermitStore(PermitStore remote, RedisFailureMode mode, PermitStore local, int failureThreshold,
			Duration cooldown, TimeSource time) {
		this.remote = Objects.requireNonNull(remote, "remote must not be null");
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.local = Objects.requireNonNull(local, "local must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("The failure threshold must be at least 1, but was " + failureThreshold);
		}
		this.failureThreshold = failureThreshold;
		this.cooldownNanos = cooldown.toNanos();
	}

	@Override
	public @Nullable Permit tryAcquire(BucketKey key, int limit) {
		long until = this.coolingDownUntil;
		if (until != 0 && this.time.nanoTime() - until < 0) {
			return fallback(key, limit);
		}
		try {
			Permit permit = this.remote.tryAcquire(key, limit);
			this.consecutiveFailures.set(0);
			this.coolingDownUntil = 0;
			return permit;
		}
		catch (RuntimeException ex) {
			this.failures.increment();
			if (this.consecutiveFailures.incrementAndGet() >= this.failureThreshold) {
				this.coolingDownUntil = this.time.nanoTime() + this.cooldownNanos;
				if (logger.isWarnEnabled()) {
					logger.warn("Redis failed " + this.failureThreshold + " times in a row; in-flight permits are "
							+ this.mode + " for " + Duration.ofNanos(this.cooldownNanos) + ": " + ex);
				}
			}
			return fallback(key, limit);
		}
	}

	private @Nullable Permit fallback(BucketKey key, int limit) {
		this.fallbacks.increment();
		return switch (this.mode) {
			case LOCAL -> this.local.tryAcquire(key, limit);
			case OPEN -> NOTHING_HELD;
			case CLOSED -> null;
		};
	}

	/**
	 * Returns the permits held in Redis and, taken while Redis failed, in this replica's
	 * store of the {@code LOCAL} failure mode: both are held by requests in progress.
	 */
	@Override
	public long permitsHeld() {
		return this.remote.permitsHeld() + this.local.permitsHeld();
	}

	/**
	 * Returns the callers holding permits in Redis plus those holding permits of the
	 * failure mode; a caller with both is counted twice.
	 */
	@Override
	public long keys() {
		return this.remote.keys() + this.local.keys();
	}

	/**
	 * Returns the refusals for room of both stores: the failure mode's store holds at most
	 * {@code ratelimit.in-flight.maximum-keys} callers too.
	 */
	@Override
	public long refusedForRoom() {
		return this.remote.refusedForRoom() + this.local.refusedForRoom();
	}

	/**
	 * Returns the permits that Redis failed to decide.
	 * @return the failures since start
	 */
	long failures() {
		return this.failures.sum();
	}

	/**
	 * Returns the requests decided by the failure mode instead of Redis.
	 * @return the fallbacks since start
	 */
	long fallbacks() {
		return this.fallbacks.sum();
	}

	/**
	 * Returns whether Redis is being left alone after repeated failures.
	 * @return whether a cooldown is in progress
	 */
	boolean isCoolingDown() {
		long until = this.coolingDownUntil;
		return until != 0 && this.time.nanoTime() - until < 0;
	}

}
