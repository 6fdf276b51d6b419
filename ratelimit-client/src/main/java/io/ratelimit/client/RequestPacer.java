package io.ratelimit.client;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.ratelimit.client.strategy.PacingStrategies;
import org.jspecify.annotations.Nullable;

/**
 * Paces the requests of one application to the rate-limited APIs it calls: one waiting line
 * and one strategy state per {@link Target}, permits in the order requests ask for them,
 * each request waiting at most {@code maxWait}. The HTTP client integrations
 * ({@code PacingInterceptor} for {@code RestClient} and {@code RestTemplate},
 * {@code PacingExchangeFilter} for {@code WebClient}, {@code PacedHttpClient} for the JDK
 * client) take a permit before each request, report each response, and retry a refused
 * request when {@link #mayRetry} says so.
 *
 * <p>Thread-safe; share one per application. {@link #close()} stops its timer thread.
 */
public final class RequestPacer implements AutoCloseable {

	private static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

	private final PacingStrategy strategy;

	private final PacingClock clock;

	private final TargetResolver targets;

	private final Duration maxWait;

	private final int maxAttempts;

	private final boolean retryNonIdempotent;

	private final ScheduledExecutorService scheduler;

	private final boolean ownsScheduler;

	private final SplittableRandom seeds;

	private final Map<Target, Lane> lanes;

	private volatile boolean closed;

	private RequestPacer(Builder builder) {
		this.strategy = builder.strategy;
		this.clock = builder.clock;
		this.targets = builder.targets;
		this.maxWait = builder.maxWait;
		this.maxAttempts = builder.maxAttempts;
		this.retryNonIdempotent = builder.retryNonIdempotent;
		this.ownsScheduler = builder.scheduler == null;
		this.scheduler = (builder.scheduler != null) ? builder.scheduler : timerThread();
		this.seeds = (builder.seed != null) ? new SplittableRandom(builder.seed) : new SplittableRandom();
		int maximumTargets = builder.maximumTargets;
		this.lanes = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<Target, Lane> eldest) {
				// A target nobody waits for may be forgotten: its next request starts afresh.
				return size() > maximumTargets && eldest.getValue().isIdle();
			}

		};
	}

	/**
	 * Returns a builder with the defaults: the header-aware strategy, the system clock,
	 * targets by endpoint, a 30-second deadline, 3 attempts, idempotent requests retried only.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the target of a request.
	 * @param method the HTTP method
	 * @param uri the absolute URI
	 * @return the target
	 */
	public Target target(String method, URI uri) {
		return this.targets.resolve(method, uri);
	}

	/**
	 * Waits for a permit to send a request to the target.
	 * @param target the target
	 * @param attempt 1 for a first attempt, more for a retry (which goes ahead of the line)
	 * @return the permit
	 * @throws PacingTimeoutException when no permit comes within the deadline
	 * @throws InterruptedException when the thread is interrupted while waiting; the request
	 * leaves the line
	 */
	public Permit acquire(Target target, int attempt) throws InterruptedException {
		CompletableFuture<Permit> permit = acquireAsync(target, attempt);
		try {
			return permit.get();
		}
		catch (InterruptedException ex) {
			permit.cancel(false);
			throw ex;
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new IllegalStateException(ex.getCause());
		}
	}

	/**
	 * Asks for a permit without blocking. Cancelling the future takes the request out of the
	 * line.
	 * @param target the target
	 * @param attempt 1 for a first attempt, more for a retry (which goes ahead of the line)
	 * @return the permit, or a future failed with {@link PacingTimeoutException}
	 */
	public CompletableFuture<Permit> acquireAsync(Target target, int attempt) {
		Objects.requireNonNull(target, "target must not be null");
		if (this.closed) {
			return CompletableFuture.failedFuture(new IllegalStateException("The request pacer is closed"));
		}
		return lane(target).acquire(this.maxWait, attempt > 1);
	}

	/**
	 * Returns whether a request refused with 429 should be sent again: not after the last
	 * attempt, and never for a method that is not idempotent unless the pacer was built to.
	 * @param method the HTTP method
	 * @param attempt the attempt that was refused, from 1
	 * @param feedback what the response said
	 * @return whether to retry
	 */
	public boolean mayRetry(String method, int attempt, Feedback feedback) {
		return feedback.isRefused() && attempt < this.maxAttempts
				&& (this.retryNonIdempotent || IDEMPOTENT_METHODS.contains(method.toUpperCase(Locale.ROOT)));
	}

	/**
	 * Returns the clock the pacer reads, for the integrations' {@code Retry-After} dates.
	 * @return the clock
	 */
	public PacingClock clock() {
		return this.clock;
	}

	/**
	 * Fails every waiting request and stops the timer thread the pacer started.
	 */
	@Override
	public void close() {
		this.closed = true;
		IllegalStateException reason = new IllegalStateException("The request pacer was closed");
		synchronized (this.lanes) {
			this.lanes.values().forEach((lane) -> lane.close(reason));
			this.lanes.clear();
		}
		if (this.ownsScheduler) {
			this.scheduler.shutdownNow();
		}
	}

	private Lane lane(Target target) {
		synchronized (this.lanes) {
			Lane lane = this.lanes.get(target);
			if (lane == null) {
				long now = this.clock.nanoTime();
				lane = new Lane(target, this.strategy.newPacing(target, this.seeds.split(), now), this.clock,
						this.scheduler);
				this.lanes.put(target, lane);
			}
			return lane;
		}
	}

	private static ScheduledExecutorService timerThread() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "ratelimit-client-pacer");
			thread.setDaemon(true);
			return thread;
		});
		timer.setRemoveOnCancelPolicy(true);
		return timer;
	}

	/**
	 * Builds a {@link RequestPacer}.
	 */
	public static final class Builder {

		private PacingStrategy strategy = PacingStrategies.headerAware();

		private PacingClock clock = PacingClock.system();

		private TargetResolver targets = TargetResolver.byEndpoint();

		private Duration maxWait = Duration.ofSeconds(30);

		private int maxAttempts = 3;

		private boolean retryNonIdempotent;

		private int maximumTargets = 10_000;

		private @Nullable ScheduledExecutorService scheduler;

		private @Nullable Long seed;

		private Builder() {
		}

		/**
		 * Sets the strategy, {@link PacingStrategies#headerAware()} by default.
		 * @param strategy the strategy
		 * @return this builder
		 */
		public Builder strategy(PacingStrategy strategy) {
			this.strategy = Objects.requireNonNull(strategy, "strategy must not be null");
			return this;
		}

		/**
		 * Sets the clock, the system clock by default.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(PacingClock clock) {
			this.clock = Objects.requireNonNull(clock, "clock must not be null");
			return this;
		}

		/**
		 * Sets how requests map to targets, {@link TargetResolver#byEndpoint()} by default.
		 * @param targets the resolver
		 * @return this builder
		 */
		public Builder targets(TargetResolver targets) {
			this.targets = Objects.requireNonNull(targets, "targets must not be null");
			return this;
		}

		/**
		 * Sets the longest a request waits for its permit, 30 seconds by default.
		 * @param maxWait the deadline, positive
		 * @return this builder
		 */
		public Builder maxWait(Duration maxWait) {
			Objects.requireNonNull(maxWait, "maxWait must not be null");
			if (maxWait.isNegative() || maxWait.isZero()) {
				throw new IllegalArgumentException("maxWait must be positive, but was " + maxWait);
			}
			this.maxWait = maxWait;
			return this;
		}

		/**
		 * Sets how many times a request is sent at most when refused with 429, 3 by default;
		 * 1 never retries.
		 * @param maxAttempts the attempts, at least 1
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			if (maxAttempts < 1) {
				throw new IllegalArgumentException("maxAttempts must be at least 1, but was " + maxAttempts);
			}
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Sets whether a refused request of a method that is not idempotent ({@code POST},
		 * {@code PATCH}) is sent again. Off by default: a 429 says the server did not act, but
		 * a proxy or a server that does not follow that rule could act twice.
		 * @param retryNonIdempotent whether to retry every method
		 * @return this builder
		 */
		public Builder retryNonIdempotent(boolean retryNonIdempotent) {
			this.retryNonIdempotent = retryNonIdempotent;
			return this;
		}

		/**
		 * Sets how many targets keep their state, 10,000 by default; beyond it the least
		 * recently used target nobody waits for is forgotten.
		 * @param maximumTargets the most targets, at least 1
		 * @return this builder
		 */
		public Builder maximumTargets(int maximumTargets) {
			if (maximumTargets < 1) {
				throw new IllegalArgumentException("maximumTargets must be at least 1, but was " + maximumTargets);
			}
			this.maximumTargets = maximumTargets;
			return this;
		}

		/**
		 * Sets the executor that wakes waiting lines; by default the pacer starts one daemon
		 * thread of its own and stops it on {@link RequestPacer#close()}.
		 * @param scheduler the executor, left running on close
		 * @return this builder
		 */
		public Builder scheduler(ScheduledExecutorService scheduler) {
			this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
			return this;
		}

		/**
		 * Seeds the strategies' jitter, for reproducible tests.
		 * @param seed the seed
		 * @return this builder
		 */
		public Builder seed(long seed) {
			this.seed = seed;
			return this;
		}

		/**
		 * Builds the pacer.
		 * @return the pacer
		 */
		public RequestPacer build() {
			return new RequestPacer(this);
		}

	}

}
