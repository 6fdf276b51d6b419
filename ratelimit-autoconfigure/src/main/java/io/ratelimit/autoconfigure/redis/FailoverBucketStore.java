package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.ratelimit.autoconfigure.RateLimitProperties.RedisFailureMode;
import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BucketStoreStats;
import io.ratelimit.core.bucket.Consumption;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A remote {@link BucketStore} behind a circuit breaker. While the remote store answers,
 * decisions are its own. When it fails, the request is decided by the failure mode instead
 * of failing: {@link RedisFailureMode#LOCAL} buckets in this process at the same policy,
 * {@link RedisFailureMode#OPEN} admission or {@link RedisFailureMode#CLOSED} refusal. After
 * {@code failureThreshold} consecutive failures the remote store is left alone for the
 * cooldown, so an outage does not add the request timeout to every request; then one
 * request at a time tries it again, and the first success ends the outage.
 * <p>
 * A remote store may answer without its server: a refusal from the state it last saw, a
 * decision from a lease. Such an answer says nothing about the server, so when the remote
 * store reports its server's {@link ServerAnswers answers}, only a call during which the
 * server answered counts as a success, and after a cooldown the request that tries again
 * first {@linkplain ServerAnswers#probe() probes} the server itself. Otherwise a server
 * that hangs, while some keys are answered locally, would keep resetting the count of
 * failures (every other request paying the full timeout) and end cooldowns it never
 * answered.
 */
public final class FailoverBucketStore implements BucketStore {

	private static final Log logger = LogFactory.getLog(FailoverBucketStore.class);

	private static final long CLOSED_MINIMUM_WAIT_NANOS = Duration.ofSeconds(1).toNanos();

	private final BucketStore remote;

	private final RedisFailureMode mode;

	private final BucketStore local;

	private final int failureThreshold;

	private final long cooldownNanos;

	private final TimeSource time;

	private final @Nullable ServerAnswers answers;

	private final AtomicInteger consecutiveFailures = new AtomicInteger();

	private final AtomicBoolean probing = new AtomicBoolean();

	private final LongAdder failures = new LongAdder();

	private final LongAdder fallbacks = new LongAdder();

	/** The monotonic time until which the remote store is left alone; 0 while it is in use. */
	private volatile long coolingDownUntil;

	private volatile @Nullable String lastFailure;

	/**
	 * Creates a store.
	 * @param remote the store to use while it works
	 * @param mode what decides requests while it does not
	 * @param local the buckets of {@link RedisFailureMode#LOCAL}
	 * @param failureThreshold consecutive failures that start a cooldown, at least 1
	 * @param cooldown how long the remote store is then left alone, positive
	 * @param time the clock of the cooldown
	 */
	public FailoverBucketStore(BucketStore remote, RedisFailureMode mode, BucketStore local, int failureThreshold,
			Duration cooldown, TimeSource time) {
		this(remote, null, mode, local, failureThreshold, cooldown, time);
	}

	/**
	 * Creates a store whose breaker listens to the server behind the remote store.
	 * @param remote the store to use while it works
	 * @param answers the answers of the server behind {@code remote}, or {@code null} to
	 * take every call that returns as the server's answer
	 * @param mode what decides requests while it does not
	 * @param local the buckets of {@link RedisFailureMode#LOCAL}
	 * @param failureThreshold consecutive failures that start a cooldown, at least 1
	 * @param cooldown how long the remote store is then left alone, positive
	 * @param time the clock of the cooldown
	 */
	public FailoverBucketStore(BucketStore remote, @Nullable ServerAnswers answers, RedisFailureMode mode,
			BucketStore local, int failureThreshold, Duration cooldown, TimeSource time) {
		this.answers = answers;
		this.remote = Objects.requireNonNull(remote, "remote must not be null");
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.local = Objects.requireNonNull(local, "local must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("The failure threshold must be at least 1, but was " + failureThreshold);
		}
		if (cooldown.isNegative() || cooldown.isZero()) {
			throw new IllegalArgumentException("The cooldown must be positive, but was " + cooldown);
		}
		this.failureThreshold = failureThreshold;
		this.cooldownNanos = cooldown.toNanos();
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		Call call = call();
		if (call == Call.NONE) {
			return fallback(key, limits, tokens);
		}
		try {
			if (call == Call.PROBE && !probe()) {
				return fallback(key, limits, tokens);
			}
			long answered = answered();
			Consumption consumption = this.remote.tryConsume(key, limits, tokens);
			succeeded(answered);
			return consumption;
		}
		catch (RuntimeException ex) {
			failed(ex);
			return fallback(key, limits, tokens);
		}
		finally {
			call.done(this.probing);
		}
	}

	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		Call call = call();
		if (call == Call.NONE) {
			if (this.mode == RedisFailureMode.LOCAL) {
				this.local.refund(key, limits, tokens);
			}
			return;
		}
		try {
			if (call == Call.PROBE && !probe()) {
				return;
			}
			long answered = answered();
			this.remote.refund(key, limits, tokens);
			succeeded(answered);
		}
		catch (RuntimeException ex) {
			// A lost refund costs one client a request's tokens; never worth failing for.
			failed(ex);
		}
		finally {
			call.done(this.probing);
		}
	}

	@Override
	public BucketStoreStats stats() {
		return this.remote.stats();
	}

	/**
	 * Returns whether the remote store is being left alone after repeated failures.
	 * @return whether a cooldown is in progress
	 */
	public boolean isCoolingDown() {
		return this.coolingDownUntil != 0;
	}

	/**
	 * Returns the remote calls that failed since start.
	 * @return the failures
	 */
	public long failures() {
		return this.failures.sum();
	}

	/**
	 * Returns the decisions taken by the failure mode instead of the remote store.
	 * @return the fallback decisions
	 */
	public long fallbacks() {
		return this.fallbacks.sum();
	}

	/**
	 * Returns the most recent failure, its type and message, or {@code null} if the remote
	 * store has not failed since it last answered.
	 * @return the failure
	 */
	public @Nullable String lastFailure() {
		return this.lastFailure;
	}

	/**
	 * Returns what decides requests while the remote store cannot be used.
	 * @return the failure mode
	 */
	public RedisFailureMode mode() {
		return this.mode;
	}

	private Call call() {
		long until = this.coolingDownUntil;
		if (until == 0) {
			return Call.NORMAL;
		}
		// After the cooldown, one request at a time finds out whether the remote store is back.
		return (this.time.nanoTime() - until >= 0 && this.probing.compareAndSet(false, true)) ? Call.PROBE : Call.NONE;
	}

	private long answered() {
		ServerAnswers answers = this.answers;
		return (answers != null) ? answers.count() : 0;
	}

	/**
	 * Asks the server itself whether it is back, when it can be asked: an answer from the
	 * remote store alone could come from its memory.
	 */
	private boolean probe() {
		ServerAnswers answers = this.answers;
		if (answers == null) {
			return true; // the request's own call is the probe
		}
		try {
			answers.probe();
		}
		catch (RuntimeException ex) {
			failed(ex);
			return false;
		}
		closeBreaker();
		return true;
	}

	/** A call returned: a success only if the server answered meanwhile (any call of it). */
	private void succeeded(long answeredBefore) {
		ServerAnswers answers = this.answers;
		if (answers != null && answers.count() == answeredBefore) {
			return;
		}
		closeBreaker();
	}

	private void closeBreaker() {
		if (this.consecutiveFailures.get() != 0 || this.coolingDownUntil != 0) {
			this.consecutiveFailures.set(0);
			if (this.coolingDownUntil != 0) {
				this.coolingDownUntil = 0;
				logger.info("Redis answers again: global rate limits are enforced in Redis again");
			}
			this.lastFailure = null;
		}
	}

	private void failed(RuntimeException ex) {
		this.failures.increment();
		this.lastFailure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
		int failures = this.consecutiveFailures.incrementAndGet();
		if (failures >= this.failureThreshold) {
			boolean starting = this.coolingDownUntil == 0;
			long until = this.time.nanoTime() + this.cooldownNanos;
			this.coolingDownUntil = (until != 0) ? until : 1;
			if (starting) {
				logger.warn(Diagnostic.W008.message("Redis failed " + failures + " times in a row (" + this.lastFailure + "); global rate limits "
						+ "are decided by ratelimit.redis.failure-mode=" + this.mode.name().toLowerCase(Locale.ROOT) + " and Redis "
						+ "is tried again every " + Duration.ofNanos(this.cooldownNanos).toMillis() + " ms"));
			}
		}
	}

	private Consumption fallback(BucketKey key, BucketLimits limits, long tokens) {
		this.fallbacks.increment();
		return switch (this.mode) {
			case LOCAL -> this.local.tryConsume(key, limits, tokens);
			case OPEN -> new Consumption(true,
					Math.max(0, limits.capacityUnits() - tokens * BucketLimits.UNITS_PER_TOKEN), 0);
			case CLOSED -> new Consumption(false, 0, Math.max(CLOSED_MINIMUM_WAIT_NANOS, untilNextAttempt()));
		};
	}

	/**
	 * Whether a request calls the remote store, and as what.
	 */
	private enum Call {

		NONE, NORMAL, PROBE;

		void done(AtomicBoolean probing) {
			if (this == PROBE) {
				probing.set(false);
			}
		}

	}

	private long untilNextAttempt() {
		long until = this.coolingDownUntil;
		return (until == 0) ? 0 : Math.max(0, until - this.time.nanoTime());
	}

}
