package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LeasableBucketStore;
import io.ratelimit.core.bucket.WallClockMeter;
import io.ratelimit.core.bucket.BucketStoreStats;
import io.ratelimit.core.bucket.Consumption;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BucketStore} in Redis, shared by every replica that uses the same Redis, key
 * prefix and key secret: Bucket4j's compare-and-swap proxy manager over Lettuce.
 * <p>
 * A Redis key is the prefix and the 32 hex digits of the {@link BucketKey}, itself a keyed
 * hash, so nothing in Redis names a client. A key expires when its bucket would be full
 * again, when forgetting it loses nothing.
 * <p>
 * Bucket proxies are kept for recently used keys so that Bucket4j's batching combines the
 * concurrent requests of a hot key into one compare-and-swap, and the state last seen of
 * each bucket is kept so that a decision usually costs one round trip, not two
 * ({@link LastSeenStateProxyManager}). A policy change reaches
 * existing buckets through Bucket4j's implicit configuration replacement; the version of a
 * shape is the wall-clock time this process first used it, so the newest shape any replica
 * has seen wins and tokens are kept ({@link TokensInheritanceStrategy#AS_IS}).
 * <p>
 * Every failure (Redis down, timeout) is thrown as a {@link RuntimeException}; deciding what
 * then happens is the job of {@link FailoverBucketStore}. The connection is opened on first
 * use, so an application starts while Redis is down, and Lettuce reconnects by itself. The
 * store works the same over a standalone server, a Sentinel-managed primary or a cluster:
 * the {@link RedisConnector} says which. As {@link ServerAnswers} it counts the answers
 * Redis gave, so that a refusal decided from a remembered state is not taken for one.
 * <p>
 * The asynchronous calls of leases ({@link #leaseAsync}, {@link #giveBackAsync},
 * {@link #chargeAsync}) go over a second connection, opened on their first use, whose
 * commands are written in batches ({@link CommandPipeline}): the background work of many
 * keys shares each round trip. Each call is still one key's compare-and-swap, one script
 * per key; on a cluster, the batch of one write holds commands for several nodes, each sent
 * to the node of its key's slot. Their answers are not counted as {@link ServerAnswers}:
 * the breaker of the request path listens to the request path.
 */
final class RedisBucketStore implements LeasableBucketStore, ServerAnswers, AutoCloseable {

	/**
	 * How long a key outlives the moment its bucket is full again: a margin for replicas
	 * whose clocks disagree a little, since each writes bucket times by its own clock.
	 */
	private static final Duration KEEP_AFTER_FULL = Duration.ofSeconds(1);

	private static final HexFormat HEX = HexFormat.of();

	private static final SecureRandom RANDOM = new SecureRandom();

	/** Decisions run by the warm-up: enough for the JIT to compile the path of one. */
	private static final int WARM_UP_DECISIONS = 200;

	/** The least time between the starts of two connection attempts at startup. */
	private static final long ATTEMPT_SPACING_NANOS = Duration.ofMillis(100).toNanos();

	/** Warm decisions the round trip measured at startup needs, besides the first. */
	private static final int MEASURED_DECISIONS = 5;

	/** Admits every warm-up decision, and lets its key expire a second after the last. */
	private static final BucketLimits WARM_UP_LIMITS = BucketLimits.of(BigDecimal.valueOf(1000), BigDecimal.ONE, 1);

	/** The default longest wait of a pipelined command for its write. */
	static final Duration DEFAULT_FLUSH_WINDOW = Duration.ofMillis(10);

	/**
	 * Pipelined commands written at once without waiting for the window: a burst goes out
	 * in writes of about this many.
	 */
	private static final int FLUSH_COMMANDS = 256;

	private final RedisConnector connector;

	private final byte[] prefix;

	private final Duration timeout;

	private final TimeSource time;

	private final long maximumProxies;

	private final Cache<BucketKey, RemoteBucket> buckets;

	private final Cache<BucketKey, RemoteAsyncBucket> asyncBuckets;

	private final Cache<BucketLimits, Long> versions = Caffeine.newBuilder().maximumSize(10_000).build();

	private Duration flushWindow = DEFAULT_FLUSH_WINDOW;

	private volatile @Nullable Pipelined pipelined;

	private volatile boolean closed;

	private final AtomicLong lastVersion = new AtomicLong();

	private final LazyConnection<Connected> connection;

	// Not a monitor: opening the pipeline waits for the network, and on JDK 21 to 23 a
	// virtual thread that waits inside a monitor, or for one, pins its carrier thread.
	private final ReentrantLock connecting = new ReentrantLock();

	/**
	 * Creates a store over a standalone server, or a primary that Sentinel names; connects
	 * on first use.
	 * @param client the Lettuce client; the store owns it and its resources, and shuts both
	 * down when closed
	 * @param keyPrefix the prefix of every key
	 * @param timeout the longest wait for one Redis request
	 * @param maximumProxies the most bucket proxies, and states last seen of buckets, kept for reuse
	 * @param time the wall clock buckets refill by; every replica's must agree
	 */
	RedisBucketStore(RedisClient client, String keyPrefix, Duration timeout, long maximumProxies, TimeSource time) {
		this(RedisConnector.of(client), keyPrefix, timeout, maximumProxies, time);
	}

	/**
	 * Creates a store; connects on first use.
	 * @param connector how to reach Redis; the store owns its client and shuts it down when
	 * closed
	 * @param keyPrefix the prefix of every key
	 * @param timeout the longest wait for one Redis request
	 * @param maximumProxies the most bucket proxies, and states last seen of buckets, kept for reuse
	 * @param time the wall clock buckets refill by; every replica's must agree
	 */
	RedisBucketStore(RedisConnector connector, String keyPrefix, Duration timeout, long maximumProxies,
			TimeSource time) {
		this.connector = Objects.requireNonNull(connector, "connector must not be null");
		this.prefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null").getBytes(StandardCharsets.UTF_8);
		this.timeout = Objects.requireNonNull(timeout, "timeout must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
		this.maximumProxies = maximumProxies;
		this.connection = new LazyConnection<>(this::open, timeout, "ratelimit-redis-connect");
		this.buckets = Caffeine.newBuilder()
			.maximumSize(maximumProxies)
			.expireAfterAccess(1, TimeUnit.MINUTES)
			.recordStats()
			.build();
		this.asyncBuckets = Caffeine.newBuilder()
			.maximumSize(maximumProxies)
			.expireAfterAccess(1, TimeUnit.MINUTES)
			.build();
	}

	/**
	 * Sets how long a pipelined command waits at most for its write; before the first
	 * asynchronous call.
	 * @param window the window, positive
	 * @return this store
	 */
	RedisBucketStore flushWindow(Duration window) {
		this.flushWindow = Objects.requireNonNull(window, "window must not be null");
		return this;
	}

	@Override
	public Consumption tryConsume(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens < 1) {
			throw new IllegalArgumentException("At least one token must be consumed, but was " + tokens);
		}
		BucketProxy bucket = bucket(key, limits);
		LastSeenStateProxyManager proxies = beginRequest();
		try {
			ConsumptionProbe probe = bucket
				.tryConsumeAndReturnRemaining(Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN));
			return new Consumption(probe.isConsumed(), probe.getRemainingTokens(),
					probe.isConsumed() ? 0 : probe.getNanosToWaitForRefill());
		}
		finally {
			proxies.endRequest();
		}
	}

	@Override
	public void refund(BucketKey key, BucketLimits limits, long tokens) {
		if (tokens > 0) {
			// addTokens caps at capacity, so a refund can never create tokens.
			addTokens(key, limits, Math.multiplyExact(tokens, BucketLimits.UNITS_PER_TOKEN));
		}
	}

	/**
	 * Takes up to {@code maximumUnits} in one compare-and-swap (Bucket4j's
	 * consume-as-much-as-possible), with the units left after it.
	 */
	@Override
	public Grant lease(BucketKey key, BucketLimits limits, long maximumUnits) {
		BucketProxy bucket = bucket(key, limits);
		LastSeenStateProxyManager proxies = beginRequest();
		try {
			VerboseResult<Long> result = bucket.asVerbose().tryConsumeAsMuchAsPossible(maximumUnits);
			return new Grant(result.getValue(), result.getDiagnostics().getAvailableTokens());
		}
		finally {
			proxies.endRequest();
		}
	}

	/**
	 * Starts {@link #lease} on the pipelined connection.
	 */
	@Override
	public CompletionStage<Grant> leaseAsync(BucketKey key, BucketLimits limits, long maximumUnits) {
		return asyncBucket(key, limits).asVerbose()
			.tryConsumeAsMuchAsPossible(maximumUnits)
			.thenApply((result) -> new Grant(result.getValue(), result.getDiagnostics().getAvailableTokens()));
	}

	/**
	 * Starts {@link #giveBack} on the pipelined connection.
	 */
	@Override
	public CompletionStage<Void> giveBackAsync(BucketKey key, BucketLimits limits, long units) {
		if (units <= 0) {
			return CompletableFuture.completedFuture(null);
		}
		return asyncBucket(key, limits).addTokens(units);
	}

	/**
	 * Starts {@link #charge} on the pipelined connection.
	 */
	@Override
	public CompletionStage<Void> chargeAsync(BucketKey key, BucketLimits limits, long units) {
		if (units <= 0) {
			return CompletableFuture.completedFuture(null);
		}
		return asyncBucket(key, limits).consumeIgnoringRateLimits(units).thenApply((remaining) -> null);
	}

	/**
	 * Returns the round trips of the pipelined connection (its writes that carried
	 * commands) and the commands it carried; zeros before its first use.
	 * @return the counts
	 */
	PipelineStats pipelineStats() {
		Pipelined current = this.pipelined;
		return (current != null) ? new PipelineStats(current.pipeline().roundTrips(), current.pipeline().commands())
				: new PipelineStats(0, 0);
	}

	@Override
	public void giveBack(BucketKey key, BucketLimits limits, long units) {
		if (units > 0) {
			addTokens(key, limits, units);
		}
	}

	/** Bucket4j's consume-ignoring-limits: the bucket may go into debt, which its refill pays. */
	@Override
	public void charge(BucketKey key, BucketLimits limits, long units) {
		if (units <= 0) {
			return;
		}
		BucketProxy bucket = bucket(key, limits);
		LastSeenStateProxyManager proxies = beginRequest();
		try {
			bucket.consumeIgnoringRateLimits(units);
		}
		finally {
			proxies.endRequest();
		}
	}

	private void addTokens(BucketKey key, BucketLimits limits, long units) {
		BucketProxy bucket = bucket(key, limits);
		LastSeenStateProxyManager proxies = beginRequest();
		try {
			bucket.addTokens(units);
		}
		finally {
			proxies.endRequest();
		}
	}

	/** Marks this thread's request as begun, for calls that wait behind a failing one. */
	private LastSeenStateProxyManager beginRequest() {
		LastSeenStateProxyManager proxies = connected().proxies();
		proxies.beginRequest();
		return proxies;
	}

	/**
	 * Counts what Redis answered; {@code 0} before the connection is open.
	 */
	@Override
	public long count() {
		Connected current = this.connection.ifOpen();
		return (current != null) ? current.proxies().answers() : 0;
	}

	/**
	 * Takes a token from a bucket of its own that nobody has used, so the state cannot be
	 * remembered: both round trips go to Redis. The key expires a second later.
	 */
	@Override
	public void probe() {
		BucketKey probe = new BucketKey(RANDOM.nextLong(), RANDOM.nextLong());
		LastSeenStateProxyManager proxies = beginRequest();
		try {
			proxies.builder().build(redisKey(probe), WARM_UP_LIMITS::configuration).tryConsume(BucketLimits.UNITS_PER_TOKEN);
		}
		finally {
			proxies.endRequest();
		}
	}

	/**
	 * Returns the buckets this replica has used in the last minute (their proxies) and the
	 * proxies dropped; the buckets themselves live in Redis, which expires them.
	 */
	@Override
	public BucketStoreStats stats() {
		this.buckets.cleanUp();
		return new BucketStoreStats(this.buckets.estimatedSize(), this.buckets.stats().evictionCount());
	}

	/**
	 * Returns the Redis key of a bucket.
	 * @param key the bucket key
	 * @return the prefix followed by the key in hex
	 */
	byte[] redisKey(BucketKey key) {
		byte[] redisKey = Arrays.copyOf(this.prefix, this.prefix.length + 32);
		byte[] hex = (HEX.toHexDigits(key.high()) + HEX.toHexDigits(key.low())).getBytes(StandardCharsets.US_ASCII);
		System.arraycopy(hex, 0, redisKey, this.prefix.length, 32);
		return redisKey;
	}

	private BucketProxy bucket(BucketKey key, BucketLimits limits) {
		RemoteBucket bucket = this.buckets.getIfPresent(key);
		if (bucket == null || !bucket.limits().equals(limits)) {
			// Connected outside the map's lock: opening the connection waits for the network,
			// and requests for the same key would each wait there for an attempt of their own.
			Connected connected = connected();
			bucket = this.buckets.asMap().compute(key, (k, current) -> (current != null && current.limits().equals(limits))
					? current : newBucket(connected, k, limits));
		}
		return bucket.proxy();
	}

	private AsyncBucketProxy asyncBucket(BucketKey key, BucketLimits limits) {
		RemoteAsyncBucket bucket = this.asyncBuckets.getIfPresent(key);
		if (bucket == null || !bucket.limits().equals(limits)) {
			Pipelined pipelined = pipelined();
			bucket = this.asyncBuckets.asMap()
				.compute(key, (k, current) -> (current != null && current.limits().equals(limits)) ? current
						: new RemoteAsyncBucket(limits, pipelined.proxies()
							.asAsync()
							.builder()
							.withOptimization(Optimizations.batching())
							.withImplicitConfigurationReplacement(version(limits), TokensInheritanceStrategy.AS_IS)
							.build(redisKey(k), () -> CompletableFuture.completedFuture(limits.configuration()))));
		}
		return bucket.proxy();
	}

	private long version(BucketLimits limits) {
		return this.versions.get(limits, (shape) -> nextVersion());
	}

	private RemoteBucket newBucket(Connected connected, BucketKey key, BucketLimits limits) {
		long version = version(limits);
		BucketProxy proxy = connected.proxies()
			.builder()
			.withOptimization(Optimizations.batching())
			.withImplicitConfigurationReplacement(version, TokensInheritanceStrategy.AS_IS)
			.build(redisKey(key), limits::configuration);
		return new RemoteBucket(limits, proxy);
	}

	private long nextVersion() {
		long now = this.time.currentTimeMillis();
		return this.lastVersion.updateAndGet((last) -> Math.max(last + 1, now));
	}

	/**
	 * Opens the connection now if it is not open, then warms the path of a decision up on a
	 * bucket of its own, so that the first requests do not pay for either. In a fresh JVM
	 * the first calls (connecting, loading and compiling the client's and Bucket4j's code)
	 * take longer than the request timeout allows, and requests would start the cooldown
	 * of {@link FailoverBucketStore} right after every deploy.
	 * @param budget the longest time to spend connecting and warming up; a refused
	 * connection (Redis down) or a failed TLS handshake (a certificate not trusted), which
	 * trying again cannot change, gives up at once
	 * @return whether the connection is open, and how fast the warm decisions were
	 */
	WarmUp connect(Duration budget) {
		long deadline = System.nanoTime() + budget.toNanos();
		int timedOut = 0;
		while (this.connection.ifOpen() == null) {
			long started = System.nanoTime();
			try {
				connected();
			}
			catch (RuntimeException ex) {
				timedOut += timedOut(started) ? 1 : 0;
				if (hopeless(ex) || !pausedBeforeNextAttempt(started, deadline)) {
					return new WarmUp(false, timedOut, null);
				}
			}
		}
		BucketKey warmUp = new BucketKey(RANDOM.nextLong(), RANDOM.nextLong());
		int answered = 0;
		long fastest = Long.MAX_VALUE;
		// Attempts are bounded too: if the connection drops meanwhile, calls fail at once and
		// must not spin until the budget is spent.
		for (int attempt = 0; attempt < 2 * WARM_UP_DECISIONS && answered < WARM_UP_DECISIONS
				&& System.nanoTime() - deadline < 0; attempt++) {
			long started = System.nanoTime();
			try {
				tryConsume(warmUp, WARM_UP_LIMITS, 1);
				// The first decision reads the bucket before writing it: two round trips.
				if (answered > 0) {
					fastest = Math.min(fastest, System.nanoTime() - started);
				}
				answered++;
			}
			catch (RuntimeException ex) {
				// Too slow yet (the timeout is short): keep warming up, unless the connection
				// dropped, when every call fails at once until it is back. A connection that
				// opens and then drops while its calls run out of time is the timeout's doing
				// too (reconnecting takes round trips that it does not allow): counted once.
				boolean dropped = rejectedWhileDisconnected(ex);
				timedOut += (timedOut(started) || dropped) ? 1 : 0;
				if (dropped) {
					break;
				}
			}
		}
		warmUpPipeline(warmUp, deadline);
		return new WarmUp(true, timedOut, (answered > MEASURED_DECISIONS) ? Duration.ofNanos(fastest) : null);
	}

	/**
	 * Waits until an attempt that failed fast is {@link #ATTEMPT_SPACING_NANOS} old: a
	 * server that answers every connection with an error (at its client limit, say) would
	 * otherwise get one attempt after another, as fast as it answers, from every replica
	 * starting at once.
	 * @return whether the budget allows another attempt
	 */
	private static boolean pausedBeforeNextAttempt(long started, long deadline) {
		long until = Math.min(started + ATTEMPT_SPACING_NANOS, deadline);
		for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
			if (Thread.currentThread().isInterrupted()) {
				return false;
			}
			LockSupport.parkNanos(left);
		}
		return System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted();
	}

	/**
	 * Whether a call that failed ran out of time rather than being refused: judged by how
	 * long it took, since a timeout reaches the caller in many forms (a handshake's, a
	 * command's, Bucket4j's, or one suppressed beside a cluster client's own exception).
	 */
	private boolean timedOut(long started) {
		return System.nanoTime() - started >= this.timeout.toNanos() * 9 / 10;
	}

	/**
	 * What warming up found.
	 * @param connected whether the connection is open
	 * @param timedOut the calls (connection attempts and decisions) that Redis did not answer
	 * within the timeout
	 * @param fastest the fastest decision Redis answered within the timeout, the first left
	 * out: one round trip (the bucket's state is known after the first, so a decision is a
	 * single swap) and a little; {@code null} if too few were answered to tell
	 */
	record WarmUp(boolean connected, int timedOut, @Nullable Duration fastest) {
	}

	/**
	 * Opens the pipelined connection of the leases' background calls and warms their path
	 * up, within what is left of the budget: opened lazily by the first call, it failed the
	 * first calls under load, and a failed call pauses credit for a second.
	 */
	private void warmUpPipeline(BucketKey warmUp, long deadline) {
		int answered = 0;
		for (int attempt = 0; attempt < WARM_UP_DECISIONS && answered < WARM_UP_DECISIONS / 4; attempt++) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return;
			}
			try {
				leaseAsync(warmUp, WARM_UP_LIMITS, BucketLimits.UNITS_PER_TOKEN).toCompletableFuture()
					.get(left, TimeUnit.NANOSECONDS);
				answered++;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException | ExecutionException | TimeoutException ex) {
				// Too slow yet, or Redis went away: the first background call tries again.
			}
		}
	}

	private static boolean hopeless(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			// Not any TLS failure: a handshake that overran the timeout in a cold JVM succeeds
			// when tried again.
			if (cause instanceof ConnectException || cause instanceof CertificateException || refusedAccess(cause)) {
				return true;
			}
			// A cluster client that reached none of its nodes reports each failure beside
			// its own exception, not as the cause.
			for (Throwable suppressed : cause.getSuppressed()) {
				if (hopeless(suppressed)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Rejected at once because the connection is down and reconnecting
	 * ({@code DisconnectedBehavior.REJECT_COMMANDS}); Lettuce says so only in the message.
	 */
	private static boolean rejectedWhileDisconnected(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (cause instanceof RedisException && message != null && message.startsWith("Currently not connected")) {
				return true;
			}
		}
		return false;
	}

	/** Credentials or permissions Redis refused: trying again cannot change its answer. */
	private static boolean refusedAccess(Throwable ex) {
		String message = ex.getMessage();
		return ex instanceof RedisCommandExecutionException && message != null
				&& (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH") || message.startsWith("NOPERM"));
	}

	private Connected connected() {
		return this.connection.get();
	}

	private Connected open() {
		RedisConnector.Connection connection = this.connector.connect();
		ExpirationAfterWriteStrategy expiration = ExpirationAfterWriteStrategy
			.basedOnTimeForRefillingBucketUpToMax(KEEP_AFTER_FULL);
		return new Connected(connection.connection(),
				new LastSeenStateProxyManager(configured(connection, expiration), new StateSwap(connection.scripts()),
						expiration, this.maximumProxies),
				expiration);
	}

	private Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> configured(RedisConnector.Connection connection,
			ExpirationAfterWriteStrategy expiration) {
		return connection.builder()
			.clientClock(WallClockMeter.of(this.time))
			.requestTimeout(this.timeout)
			.expirationAfterWrite(expiration);
	}

	/**
	 * The pipelined connection, opened on first use (by the background, never a request),
	 * sharing the states the request path saw.
	 */
	private Pipelined pipelined() {
		Pipelined current = this.pipelined;
		if (current == null) {
			Connected connected = connected();
			this.connecting.lock();
			try {
				current = this.pipelined;
				if (current == null) {
					if (this.closed) {
						throw new IllegalStateException("The Redis bucket store is closed");
					}
					RedisConnector.Connection connection = this.connector.connect();
					CommandPipeline pipeline = new CommandPipeline(connection.connection(), this.flushWindow,
							FLUSH_COMMANDS, "ratelimit-redis-flush");
					current = new Pipelined(pipeline,
							new LastSeenStateProxyManager(configured(connection, connected.expiration()),
									new StateSwap(connection.scripts()), connected.proxies(), pipeline::issued,
									pipeline::issuedUrgently));
					this.pipelined = current;
				}
			}
			finally {
				this.connecting.unlock();
			}
		}
		return current;
	}

	@Override
	public void close() {
		this.connecting.lock();
		try {
			this.closed = true;
		}
		finally {
			this.connecting.unlock();
		}
		Pipelined pipelined = this.pipelined;
		if (pipelined != null) {
			pipelined.pipeline().close();
		}
		Connected current = this.connection.ifOpen();
		if (current != null) {
			current.connection().close();
		}
		this.connector.shutdown();
	}

	/**
	 * What the pipelined connection carried.
	 *
	 * @param roundTrips the writes that carried commands
	 * @param commands the commands
	 */
	record PipelineStats(long roundTrips, long commands) {
	}

	private record Connected(StatefulConnection<byte[], byte[]> connection, LastSeenStateProxyManager proxies,
			ExpirationAfterWriteStrategy expiration) {
	}

	private record Pipelined(CommandPipeline pipeline, LastSeenStateProxyManager proxies) {
	}

	private record RemoteAsyncBucket(BucketLimits limits, AsyncBucketProxy proxy) {
	}

	private record RemoteBucket(BucketLimits limits, BucketProxy proxy) {
	}

}
