package io.ratelimit.core.shed;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Sheds load by priority under an adaptive, application-wide concurrency limit. A request
 * is admitted with a {@link Permit} while fewer requests of its class are in flight than
 * its class may use: {@link Priority#CRITICAL} all of the limit, {@link Priority#DEFAULT}
 * the limit less the critical reserve, {@link Priority#SHEDDABLE} the limit less both
 * reserves. Admission is one compare-and-set on the in-flight count against the class's
 * ceiling, so concurrent requests can never take more than their class may use (a separate
 * check and increment would let them).
 * <p>
 * The limit follows the latency of the requests the application answers: TCP Vegas'
 * estimate of queueing (Netflix's {@code VegasLimit}) raises it while requests do not
 * queue and lowers it when they do, between a minimum and a maximum. The no-load latency
 * Vegas compares against is re-measured now and then by {@link MinRttProbe}.
 * <p>
 * In shadow mode every decision is computed and counted, and every request admitted.
 * Thread-safe.
 */
public final class LoadShedder {

	/** How long after the last shed request the shedder still reports itself shedding. */
	private static final long RECENT_SHED_NANOS = TimeUnit.SECONDS.toNanos(10);

	private static final Priority[] PRIORITIES = Priority.values();

	private final EndpointPriorities priorities;

	private final TimeSource time;

	private final boolean shadow;

	private final int minLimit;

	private final int maxLimit;

	private final int probeLimit;

	private final double[] shares = new double[PRIORITIES.length];

	private final long retryAfterSeconds;

	private final AtomicInteger inFlight = new AtomicInteger();

	private final LongAdder[] shed = new LongAdder[PRIORITIES.length];

	private final AtomicLong noLoadRtt = new AtomicLong(Long.MAX_VALUE);

	private final MinRttProbe probe;

	private volatile Limit limit;

	private volatile long lastShedAt;

	private volatile boolean everShed;

	private LoadShedder(Builder builder) {
		this.priorities = builder.priorities;
		this.time = builder.time;
		this.shadow = builder.shadow;
		this.minLimit = builder.minLimit;
		this.maxLimit = builder.maxLimit;
		this.probeLimit = (builder.probeLimit > 0) ? builder.probeLimit : builder.minLimit;
		this.shares[Priority.CRITICAL.ordinal()] = 1.0;
		this.shares[Priority.DEFAULT.ordinal()] = 1.0 - builder.criticalReserve;
		this.shares[Priority.SHEDDABLE.ordinal()] = 1.0 - builder.criticalReserve - builder.defaultReserve;
		this.retryAfterSeconds = builder.retryAfterSeconds;
		for (int i = 0; i < this.shed.length; i++) {
			this.shed[i] = new LongAdder();
		}
		this.limit = newLimit(builder.initialLimit);
		this.probe = new MinRttProbe(builder.probeInterval.toNanos(), builder.probeJitter, builder.probeSamples,
				builder.probeMaxDuration.toNanos(), builder.random, this::remeasured, this.time.nanoTime());
	}

	/**
	 * Returns a builder over the given endpoint classes.
	 * @param priorities the priority class of each endpoint
	 * @return a new builder
	 */
	public static Builder builder(EndpointPriorities priorities) {
		return new Builder(priorities);
	}

	/**
	 * Admits a request to an endpoint or sheds it.
	 * @param endpoint the endpoint the request was resolved to
	 * @return the permit to release when the response completes, or {@code null} if the
	 * request is shed (never in shadow mode)
	 */
	public @Nullable Permit acquire(EndpointTemplate endpoint) {
		Priority priority = this.priorities.of(endpoint);
		long now = this.time.nanoTime();
		boolean probing = this.probe.pinned(now);
		int ceiling = ceiling(priority, probing ? this.probeLimit : limit());
		for (;;) {
			int current = this.inFlight.get();
			if (current >= ceiling) {
				countShed(priority, now);
				if (!this.shadow) {
					return null;
				}
				return new Permit(this, priority, now, this.inFlight.incrementAndGet(), probing, !endpoint.isUnknown());
			}
			if (this.inFlight.compareAndSet(current, current + 1)) {
				return new Permit(this, priority, now, current + 1, probing, !endpoint.isUnknown());
			}
		}
	}

	void release(Permit permit, Completion completion) {
		this.inFlight.decrementAndGet();
		if (completion == Completion.IGNORED || !permit.sampled()) {
			return;
		}
		long now = this.time.nanoTime();
		long rtt = Math.max(1, now - permit.startNanos());
		this.limit.onSample(permit.startNanos(), rtt, permit.inFlightAtStart(), completion == Completion.DROPPED);
		if (completion == Completion.SUCCESS) {
			this.noLoadRtt.accumulateAndGet(rtt, Math::min);
			this.probe.offer(permit, rtt, now);
		}
	}

	/**
	 * Starts the limit afresh from the no-load latency a probe measured: Vegas keeps the
	 * lowest latency it ever saw and has no other way to be told a new one.
	 */
	private void remeasured(long fastestNanos) {
		Limit fresh = newLimit(limit());
		fresh.onSample(this.time.nanoTime() - fastestNanos, fastestNanos, 0, false);
		this.noLoadRtt.set(fastestNanos);
		this.limit = fresh;
	}

	private Limit newLimit(int initial) {
		return VegasLimit.newBuilder()
			.initialLimit(initial)
			.maxConcurrency(this.maxLimit)
			// Vegas' own probe adopts whatever latency it sees, queued or not: MinRttProbe
			// measures at low concurrency instead.
			.probeMultiplier(Integer.MAX_VALUE)
			.build();
	}

	private void countShed(Priority priority, long now) {
		this.shed[priority.ordinal()].increment();
		this.lastShedAt = now;
		if (!this.everShed) {
			this.everShed = true;
		}
	}

	private int ceiling(Priority priority, int limit) {
		// At least one: a small limit (a floor of 1 or 2, a probe at 1) must not shut a class out.
		return (priority == Priority.CRITICAL) ? limit : Math.max(1, (int) (limit * this.shares[priority.ordinal()]));
	}

	/**
	 * Returns the concurrency limit in force: the adaptive limit, or the probe's limit while
	 * the no-load latency is being re-measured.
	 * @return the limit
	 */
	public int currentLimit() {
		return this.probe.isProbing() ? this.probeLimit : limit();
	}

	/**
	 * Returns how many requests of a class may be in flight at once under the current limit.
	 * @param priority the class
	 * @return the ceiling of the class
	 */
	public int ceiling(Priority priority) {
		return ceiling(priority, currentLimit());
	}

	private int limit() {
		return Math.min(this.maxLimit, Math.max(this.minLimit, this.limit.getLimit()));
	}

	/**
	 * Returns how many admitted requests have not completed yet.
	 * @return the requests in flight
	 */
	public int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Returns how many requests of a class were shed (in shadow mode: would have been).
	 * @param priority the class
	 * @return the count since start
	 */
	public long shed(Priority priority) {
		return this.shed[priority.ordinal()].sum();
	}

	/**
	 * Returns whether a request was shed (in shadow mode: would have been) in the last ten
	 * seconds.
	 * @return whether the shedder is shedding
	 */
	public boolean isShedding() {
		return this.everShed && this.time.nanoTime() - this.lastShedAt < RECENT_SHED_NANOS;
	}

	/**
	 * Returns whether the no-load latency is being re-measured, the limit pinned to its
	 * minimum meanwhile.
	 * @return whether a probe is under way
	 */
	public boolean isProbing() {
		return this.probe.isProbing();
	}

	/**
	 * Returns the no-load latency the limit is computed against.
	 * @return the latency, or {@code null} before the first answered request
	 */
	public @Nullable Duration noLoadLatency() {
		long nanos = this.noLoadRtt.get();
		return (nanos == Long.MAX_VALUE) ? null : Duration.ofNanos(nanos);
	}

	/**
	 * Returns the class of an endpoint.
	 * @param endpoint the endpoint
	 * @return its priority class
	 */
	public Priority priorityOf(EndpointTemplate endpoint) {
		return this.priorities.of(endpoint);
	}

	/**
	 * Returns whether decisions are only counted, never enforced.
	 * @return whether in shadow mode
	 */
	public boolean isShadow() {
		return this.shadow;
	}

	/**
	 * Returns the {@code Retry-After} of a shed request.
	 * @return whole seconds, at least one
	 */
	public long retryAfterSeconds() {
		return this.retryAfterSeconds;
	}

	/**
	 * Returns the bounds of the limit.
	 * @return the smallest limit
	 */
	public int minLimit() {
		return this.minLimit;
	}

	/**
	 * Returns the bounds of the limit.
	 * @return the largest limit
	 */
	public int maxLimit() {
		return this.maxLimit;
	}

	/**
	 * Builds a {@link LoadShedder}, checking each setting.
	 */
	public static final class Builder {

		private final EndpointPriorities priorities;

		private TimeSource time = TimeSource.system();

		private boolean shadow;

		private int minLimit = 4;

		private int maxLimit = 200;

		private int initialLimit = 20;

		private double criticalReserve = 0.2;

		private double defaultReserve = 0.2;

		private long retryAfterSeconds = 1;

		private Duration probeInterval = Duration.ofSeconds(60);

		private double probeJitter = 0.15;

		private int probeSamples = 25;

		private Duration probeMaxDuration = Duration.ofSeconds(2);

		private int probeLimit;

		private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

		private Builder(EndpointPriorities priorities) {
			this.priorities = Objects.requireNonNull(priorities, "priorities must not be null");
		}

		/**
		 * Sets the clock latencies and probes are timed with.
		 * @param time the clock
		 * @return this builder
		 */
		public Builder time(TimeSource time) {
			this.time = Objects.requireNonNull(time, "time must not be null");
			return this;
		}

		/**
		 * Sets whether decisions are only counted, never enforced.
		 * @param shadow whether in shadow mode
		 * @return this builder
		 */
		public Builder shadow(boolean shadow) {
			this.shadow = shadow;
			return this;
		}

		/**
		 * Sets the bounds and the starting point of the limit.
		 * @param min the smallest limit, at least 1; also the limit while probing unless
		 * {@link #probeLimit(int)} says otherwise
		 * @param initial the limit at start
		 * @param max the largest limit
		 * @return this builder
		 */
		public Builder limits(int min, int initial, int max) {
			require(min >= 1, "min-limit must be at least 1, but was " + min);
			require(max >= min, "max-limit must be at least min-limit (" + min + "), but was " + max);
			require(initial >= min && initial <= max,
					"initial-limit must be between min-limit and max-limit, but was " + initial);
			this.minLimit = min;
			this.initialLimit = initial;
			this.maxLimit = max;
			return this;
		}

		/**
		 * Sets the shares of the limit held back from lower classes.
		 * @param critical the share only {@link Priority#CRITICAL} requests may use
		 * @param defaults the further share {@link Priority#SHEDDABLE} requests may not use
		 * @return this builder
		 */
		public Builder reserves(double critical, double defaults) {
			require(critical >= 0 && critical < 1, "critical-reserve must be in [0, 1), but was " + critical);
			require(defaults >= 0 && defaults < 1, "default-reserve must be in [0, 1), but was " + defaults);
			require(critical + defaults < 1,
					"critical-reserve plus default-reserve must be below 1, but was " + (critical + defaults));
			this.criticalReserve = critical;
			this.defaultReserve = defaults;
			return this;
		}

		/**
		 * Sets the {@code Retry-After} of a shed request.
		 * @param retryAfter the delay, rounded up to whole seconds
		 * @return this builder
		 */
		public Builder retryAfter(Duration retryAfter) {
			require(retryAfter.compareTo(Duration.ZERO) > 0, "retry-after must be positive, but was " + retryAfter);
			long seconds = retryAfter.getSeconds() + ((retryAfter.getNano() > 0) ? 1 : 0);
			this.retryAfterSeconds = seconds;
			return this;
		}

		/**
		 * Sets how the no-load latency is re-measured.
		 * @param interval the time between probes
		 * @param jitter up to this share of the interval is added at random to each wait
		 * @param samples the answered requests a probe takes the fastest of
		 * @param maxDuration the longest a probe pins the limit
		 * @return this builder
		 */
		public Builder probe(Duration interval, double jitter, int samples, Duration maxDuration) {
			require(interval.compareTo(Duration.ZERO) > 0, "probe.interval must be positive, but was " + interval);
			require(jitter >= 0 && jitter <= 1, "probe.jitter must be in [0, 1], but was " + jitter);
			require(samples >= 1, "probe.samples must be at least 1, but was " + samples);
			require(maxDuration.compareTo(Duration.ZERO) > 0,
					"probe.max-duration must be positive, but was " + maxDuration);
			this.probeInterval = interval;
			this.probeJitter = jitter;
			this.probeSamples = samples;
			this.probeMaxDuration = maxDuration;
			return this;
		}

		/**
		 * Sets the concurrency limit while the no-load latency is measured: at most the
		 * parallelism of the service's bottleneck (a pool's connections), or the requests
		 * measured queue behind each other and the measured latency is a loaded one.
		 * @param limit the limit while probing, at least 1; the smallest limit by default
		 * @return this builder
		 */
		public Builder probeLimit(int limit) {
			require(limit >= 1, "probe.limit must be at least 1, but was " + limit);
			this.probeLimit = limit;
			return this;
		}

		/**
		 * Sets the source of the probes' jitter, for tests.
		 * @param random values in {@code [0, 1)}
		 * @return this builder
		 */
		public Builder random(DoubleSupplier random) {
			this.random = Objects.requireNonNull(random, "random must not be null");
			return this;
		}

		/**
		 * Builds the shedder.
		 * @return the shedder
		 */
		public LoadShedder build() {
			return new LoadShedder(this);
		}

		private static void require(boolean condition, String message) {
			if (!condition) {
				throw new IllegalArgumentException(message);
			}
		}

	}

}
