package io.ratelimit.client.fleet;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.ratelimit.client.PacingClock;
import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * Telemetry shared through Redis by every process of a fleet that uses the same server, key
 * prefix and window. Windows are numbered by the clock's wall time divided by the window,
 * so the processes' clocks must roughly agree.
 * <p>
 * For each target and window there are three keys, all expiring three windows after their
 * last write: {@code <prefix>{<target>}:<window>:clients}, the set of reporting client ids;
 * {@code ...:requests}, the requests they reported; and {@code ...:congested}, the set of
 * refused client ids. {@code <target>} is 32 hex digits of a SHA-256 of the host and
 * endpoint, in braces so that a target's keys share one Redis Cluster slot. A refusal is also
 * published on {@code <prefix>congestion}, and each instance adds the refusals it hears to
 * its view at once.
 * <p>
 * {@link #view} answers from memory: the aggregate of the last complete window, read in the
 * background at most once a quarter window per target, merged with the refusals heard since.
 * <p>
 * Redis is never in the way of a request: every method answers from memory, does not wait
 * for Redis and does not throw. The connections are opened in the background from
 * construction on; a call made while none is open is not sent, and an attempt that fails,
 * or takes longer than a window, is tried again a window later (at least a second in both
 * cases). Commands are not queued while Lettuce reconnects a dropped connection, and count as
 * failed when unanswered after a timeout (250 ms by default). Failures are counted
 * ({@link #failures()}) and logged at most once a window. An aggregate read more than two
 * windows ago is not shown: {@link #view} returns {@code null} and the strategy paces on its
 * own until Redis answers again.
 */
public final class RedisFleetTelemetry implements FleetTelemetry, AutoCloseable {

	/** The key prefix unless another is given. */
	public static final String DEFAULT_KEY_PREFIX = "ratelimit-client:";

	/** The longest wait for Redis unless another is given. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

	private static final System.Logger logger = System.getLogger(RedisFleetTelemetry.class.getName());

	/** Keys live this many windows past their last write: theirs, the next that reads them, a margin. */
	private static final int KEPT_WINDOWS = 3;

	/** The aggregate is read again at most this many times per window. */
	private static final int REFRESHES_PER_WINDOW = 4;

	private static final long MINIMUM_RETRY_MILLIS = 1000;

	private final PacingClock clock;

	private final long windowMillis;

	private final long timeoutMillis;

	private final RedisFleetKeys keys;

	/** The client's own threads, for what must not run on the caller's. */
	private final ScheduledExecutorService background;

	private final LazyConnection<StatefulRedisConnection<String, String>> commands;

	private final LazyConnection<StatefulRedisPubSubConnection<String, String>> subscription;

	private final RedisFleetTargets targets;

	private final AtomicLong failures = new AtomicLong();

	private final AtomicLong loggedWindow = new AtomicLong(Long.MIN_VALUE);

	/**
	 * Creates telemetry with the default key prefix and timeout, and starts connecting in the
	 * background.
	 * @param client the Lettuce client, owned by the application; only the connections
	 * opened here are closed by {@link #close()}
	 * @param uri the Redis server (Lettuce does not expose the client's own)
	 * @param clock the clock whose wall time numbers the windows
	 * @param window the length of a window, the clients' report interval
	 */
	public RedisFleetTelemetry(RedisClient client, RedisURI uri, PacingClock clock, Duration window) {
		this(client, uri, clock, window, DEFAULT_KEY_PREFIX, DEFAULT_TIMEOUT);
	}

	/**
	 * Creates telemetry, and starts connecting in the background.
	 * @param client the Lettuce client, owned by the application; only the connections
	 * opened here are closed by {@link #close()}
	 * @param uri the Redis server (Lettuce does not expose the client's own)
	 * @param clock the clock whose wall time numbers the windows
	 * @param window the length of a window, the clients' report interval
	 * @param keyPrefix the prefix of every key and of the channel
	 * @param timeout the longest wait for Redis before a command counts as failed
	 */
	public RedisFleetTelemetry(RedisClient client, RedisURI uri, PacingClock clock, Duration window, String keyPrefix,
			Duration timeout) {
		Objects.requireNonNull(client, "client must not be null");
		Objects.requireNonNull(uri, "uri must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.windowMillis = FleetWindows.requireWindow(window);
		this.keys = new RedisFleetKeys(Objects.requireNonNull(keyPrefix, "keyPrefix must not be null"));
		Objects.requireNonNull(timeout, "timeout must not be null");
		if (timeout.toMillis() < 1) {
			throw new IllegalArgumentException("The telemetry timeout must be at least 1 ms, but was " + timeout);
		}
		this.timeoutMillis = timeout.toMillis();
		this.targets = new RedisFleetTargets(this.windowMillis, KEPT_WINDOWS * this.windowMillis);
		this.background = client.getResources().eventExecutorGroup();
		long retryNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(MINIMUM_RETRY_MILLIS, this.windowMillis));
		this.commands = new LazyConnection<>(() -> connect(client, uri, timeout), this.background, clock, retryNanos,
				this::failed);
		this.subscription = new LazyConnection<>(() -> subscribe(client, uri), this.background, clock, retryNanos,
				this::failed);
		// Opening a first connection in a JVM takes about a second: start before any request.
		this.commands.get();
		this.subscription.get();
	}

	@Override
	public void report(Target target, String clientId, long requests, boolean congested) {
		long now = this.clock.currentTimeMillis();
		long window = now / this.windowMillis;
		RedisFleetTarget state = this.targets.get(target, now);
		String tag = state.tag();
		if (congested) {
			state.hear(window, clientId);
		}
		send((redis) -> {
			String clients = this.keys.clients(tag, window);
			String total = this.keys.requests(tag, window);
			CompletableFuture<Void> counted = CompletableFuture.allOf(future(redis.sadd(clients, clientId)),
					expire(redis, clients), future(redis.incrby(total, Math.max(0, requests))), expire(redis, total));
			return congested ? CompletableFuture.allOf(counted, addCongested(redis, tag, window, clientId)) : counted;
		});
		refreshIfDue(state, now);
	}

	@Override
	public void reportCongestion(Target target, String clientId) {
		long now = this.clock.currentTimeMillis();
		long window = now / this.windowMillis;
		RedisFleetTarget state = this.targets.get(target, now);
		state.hear(window, clientId);
		String message = RedisFleetKeys.congestion(state.tag(), window, clientId);
		send((redis) -> CompletableFuture.allOf(addCongested(redis, state.tag(), window, clientId),
				future(redis.publish(this.keys.channel(), message))));
	}

	@Override
	public @Nullable FleetView view(Target target) {
		long now = this.clock.currentTimeMillis();
		RedisFleetTarget state = this.targets.get(target, now);
		FleetView view = state.view(now, this.windowMillis);
		refreshIfDue(state, now);
		return view;
	}

	/**
	 * Returns how many times Redis failed this telemetry so far: connection attempts that
	 * failed, commands that failed or went unanswered, and calls not sent because no
	 * connection was open. For metrics and tests.
	 * @return the number of failures
	 */
	public long failures() {
		return this.failures.get();
	}

	/**
	 * Returns whether both connections are open.
	 * @return whether reports are sent and refusals heard
	 */
	boolean connected() {
		StatefulRedisConnection<String, String> connection = this.commands.get();
		StatefulRedisPubSubConnection<String, String> listening = this.subscription.get();
		return connection != null && connection.isOpen() && listening != null && listening.isOpen();
	}

	/**
	 * Closes the connections this telemetry opened; the client stays open. Close the
	 * telemetry before the client, which may otherwise be shut down under a reconnection.
	 */
	@Override
	public void close() {
		this.subscription.close();
		this.commands.close();
	}

	private CompletableFuture<Void> addCongested(RedisAsyncCommands<String, String> redis, String tag, long window,
			String clientId) {
		String congested = this.keys.congested(tag, window);
		return CompletableFuture.allOf(future(redis.sadd(congested, clientId)), expire(redis, congested));
	}

	private CompletableFuture<Boolean> expire(RedisAsyncCommands<String, String> redis, String key) {
		return future(redis.pexpire(key, KEPT_WINDOWS * this.windowMillis));
	}

	/** Reads the last complete window in the background, when this quarter window has not. */
	private void refreshIfDue(RedisFleetTarget state, long now) {
		if (!state.startRefresh(now * REFRESHES_PER_WINDOW / this.windowMillis)) {
			return;
		}
		long previous = now / this.windowMillis - 1;
		String tag = state.tag();
		send((redis) -> {
			CompletableFuture<Long> clients = future(redis.scard(this.keys.clients(tag, previous)));
			CompletableFuture<String> requests = future(redis.get(this.keys.requests(tag, previous)));
			CompletableFuture<Set<String>> congested = future(redis.smembers(this.keys.congested(tag, previous)));
			CompletableFuture<Set<String>> since = future(redis.smembers(this.keys.congested(tag, previous + 1)));
			return CompletableFuture.allOf(clients, requests, congested, since).thenApply((done) -> {
				Set<String> refused = new HashSet<>(congested.join());
				refused.addAll(since.join());
				long total = (requests.join() != null) ? Long.parseLong(requests.join()) : 0;
				return new RedisFleetTarget.Aggregate(previous, clients.join(), total, refused, now);
			});
		}).whenComplete((aggregate, ex) -> state.refreshed(aggregate));
	}

	/**
	 * Sends commands if the connection is open, and gives up on them after the timeout.
	 * Never throws and never waits: telemetry is advice, and a request must not pay for Redis.
	 */
	private <T> CompletableFuture<T> send(
			Function<RedisAsyncCommands<String, String>, ? extends CompletionStage<T>> commands) {
		// A subscription that failed to open is tried again when anything is sent.
		this.subscription.get();
		StatefulRedisConnection<String, String> connection = this.commands.get();
		if (connection == null && this.commands.firstAttemptPending()) {
			// Not a failure: nothing has failed yet, the process has only just started.
			return CompletableFuture.failedFuture(new RedisConnectionException("Still connecting to Redis"));
		}
		CompletableFuture<T> sent;
		if (connection == null || !connection.isOpen()) {
			// While Lettuce reconnects it would queue the commands, to be sent when stale.
			sent = CompletableFuture.failedFuture(new RedisConnectionException("Not connected to Redis"));
		}
		else {
			try {
				sent = commands.apply(connection.async())
					.toCompletableFuture()
					.orTimeout(this.timeoutMillis, TimeUnit.MILLISECONDS);
			}
			catch (RuntimeException ex) {
				sent = CompletableFuture.failedFuture(ex);
			}
		}
		sent.whenComplete((value, ex) -> {
			if (ex != null) {
				failed(ex);
			}
		});
		return sent;
	}

	private void failed(Throwable ex) {
		long count = this.failures.incrementAndGet();
		long window = this.clock.currentTimeMillis() / this.windowMillis;
		long logged = this.loggedWindow.get();
		if (logged == window || !this.loggedWindow.compareAndSet(logged, window)) {
			return;
		}
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		try {
			// Not on the caller's thread: a first log record takes over 100 ms in a fresh JVM.
			this.background.execute(() -> logger.log(Level.WARNING, "Fleet telemetry in Redis failed ({0} failures "
					+ "so far); clients pace on their own until it answers again: {1}", count, cause.toString()));
		}
		catch (RejectedExecutionException shutDown) {
			// The application closed the client: nothing more will be sent, nor worth telling.
		}
	}

	private static CompletionStage<StatefulRedisConnection<String, String>> connect(RedisClient client, RedisURI uri,
			Duration timeout) {
		return client.connectAsync(StringCodec.UTF8, uri).thenApply((connection) -> {
			// Lettuce then drops a command unanswered after the timeout (unless the application
			// turned its command timeouts off), instead of holding it for the URI's, a minute
			// by default.
			connection.setTimeout(timeout);
			return connection;
		});
	}

	private CompletionStage<StatefulRedisPubSubConnection<String, String>> subscribe(RedisClient client,
			RedisURI uri) {
		RedisFleetTargets heardBy = this.targets;
		return client.connectPubSubAsync(StringCodec.UTF8, uri).thenCompose((connection) -> {
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					heardBy.heard(message);
				}

			});
			return connection.async().subscribe(this.keys.channel()).handle((subscribed, ex) -> {
				if (ex != null) {
					connection.closeAsync();
					throw new CompletionException(ex);
				}
				return connection;
			});
		});
	}

	private static <T> CompletableFuture<T> future(RedisFuture<T> command) {
		return command.toCompletableFuture();
	}

}
