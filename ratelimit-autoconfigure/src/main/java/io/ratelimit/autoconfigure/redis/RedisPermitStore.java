package io.ratelimit.autoconfigure.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisSortedSetAsyncCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.api.sync.RedisSortedSetCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.concurrency.Permit;
import io.ratelimit.core.concurrency.PermitStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Permits of {@code GLOBAL} in-flight limits in Redis, shared by every replica: one sorted
 * set per caller key, its members the permits held, each scored with the moment it expires
 * by the Redis server's clock. Taking a permit is one script that first drops the expired
 * members, so the count is always of live permits; giving it back removes its member.
 * <p>
 * A permit expires unless renewed: this replica renews the permits it holds every third of
 * the time to live, so a live permit always has at least two thirds of it left. The bound:
 * a permit of a replica that dies (killed, partitioned, frozen) stops being renewed and is
 * free again at most one time to live after its last renewal. A request that outlives a
 * lost connection to Redis the same way loses its permit to expiry: the limit is then
 * briefly looser, never stuck. A release that fails is not retried: the permit expires.
 * An acquire that fails (a timeout, a dropped connection) sends the removal of the permit it
 * may have taken without waiting for it, so a script Redis ran, or runs once a hung
 * connection heals, leaves no permit that no request holds.
 * <p>
 * Renewals run on one background thread, a round every third of the time to live. A round
 * ends at its third failure in a row, so a Redis that is down or hangs holds the thread for
 * about three timeouts a round, not one per permit. The permits it did not renew stay held
 * (counted, and released as usual when their requests complete), and the next round tries
 * them again: if Redis answers again within the time to live they are renewed and nothing
 * is lost; if it stays away longer, they expire in Redis, free for any replica, and the
 * first round that reaches Redis again drops them from this replica's count
 * ({@link #lostPermits()}).
 * <p>
 * Every failure to take a permit is thrown as a {@link RuntimeException}, for
 * {@link FailoverPermitStore} to decide what happens. A request waits for one timeout at
 * most, or, before the connection is open, for one connection attempt, which the requests
 * that arrive meanwhile share. Times come from the server ({@code TIME} in the scripts),
 * so replicas whose clocks disagree still agree on expiry.
 */
final class RedisPermitStore implements PermitStore, AutoCloseable {

	/** Renewals failing one after another that end a round: Redis is away. */
	private static final int RENEWAL_FAILURES_BEFORE_GIVING_UP_A_ROUND = 3;

	private static final Log logger = LogFactory.getLog(RedisPermitStore.class);

	private static final HexFormat HEX = HexFormat.of();

	/*
	 * KEYS[1] the set; ARGV[1] the limit, ARGV[2] the permit, ARGV[3] the time to live (ms).
	 * Returns the permits left after taking one, or -1 when none is free.
	 */
	private static final String ACQUIRE = """
			local t = redis.call('TIME')
			local now = t[1] * 1000 + math.floor(t[2] / 1000)
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
			local held = redis.call('ZCARD', KEYS[1])
			local limit = tonumber(ARGV[1])
			if held >= limit then
			  return -1
			end
			local ttl = tonumber(ARGV[3])
			redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
			redis.call('PEXPIRE', KEYS[1], ttl)
			return limit - held - 1
			""";

	/* KEYS[1] the set; ARGV[1] the permit, ARGV[2] the time to live (ms). 1 if renewed. */
	private static final String RENEW = """
			if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
			  return 0
			end
			local t = redis.call('TIME')
			local now = t[1] * 1000 + math.floor(t[2] / 1000)
			local ttl = tonumber(ARGV[2])
			redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1])
			redis.call('PEXPIRE', KEYS[1], ttl)
			return 1
			""";

	private final RedisConnector connector;

	private final byte[] prefix;

	private final Duration timeout;

	private final long ttlMillis;

	private final byte[] ttlArgument;

	/** Names this replica's permits: a random part per process and a counter. */
	private final String replica = HEX.toHexDigits(new SecureRandom().nextLong());

	private final AtomicLong sequence = new AtomicLong();

	private final Set<RedisPermit> held = ConcurrentHashMap.newKeySet();

	private final LongAdder lostPermits = new LongAdder();

	private final ScheduledExecutorService renewer;

	private final LazyConnection<StatefulConnection<byte[], byte[]>> connection;

	/**
	 * Creates a store; connects on first use and renews every third of the time to live.
	 * @param connector how to reach Redis; the store owns its client
	 * @param keyPrefix the prefix of every key
	 * @param timeout the longest wait for one Redis request
	 * @param ttl how long a permit lives unless renewed, at least a second
	 */
	RedisPermitStore(RedisConnector connector, String keyPrefix, Duration timeout, Duration ttl) {
		this.connector = Objects.requireNonNull(connector, "connector must not be null");
		this.prefix = (Objects.requireNonNull(keyPrefix, "keyPrefix must not be null") + "in-flight:")
			.getBytes(StandardCharsets.UTF_8);
		this.timeout = Objects.requireNonNull(timeout, "timeout must not be null");
		this.connection = new LazyConnection<>(() -> {
			StatefulConnection<byte[], byte[]> opened = connector.connect().connection();
			opened.setTimeout(timeout);
			return opened;
		}, timeout, "ratelimit-redis-permits-connect");
		if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("The permit time to live must be at least 1s, but was " + ttl);
		}
		this.ttlMillis = ttl.toMillis();
		this.ttlArgument = bytes(this.ttlMillis);
		this.renewer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-permit-renewal");
			thread.setDaemon(true);
			return thread;
		});
		long period = Math.max(1, this.ttlMillis / 3);
		this.renewer.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
	}

	@Override
	public @Nullable Permit tryAcquire(BucketKey key, int limit) {
		byte[] redisKey = redisKey(key);
		byte[] id = (this.replica + ":" + this.sequence.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
		Long left;
		try {
			left = scripting().eval(ACQUIRE, ScriptOutputType.INTEGER, new byte[][] { redisKey }, bytes(limit), id,
					this.ttlArgument);
		}
		catch (RuntimeException ex) {
			giveBackUnanswered(redisKey, id);
			throw ex;
		}
		if (left == null || left < 0) {
			return null;
		}
		RedisPermit permit = new RedisPermit(redisKey, id, left);
		this.held.add(permit);
		return permit;
	}

	private void release(RedisPermit permit) {
		this.held.remove(permit);
		try {
			sortedSets().zrem(permit.key, permit.id);
		}
		catch (RuntimeException ex) {
			// Not retried: the permit expires within its time to live.
			this.lostPermits.increment();
			if (logger.isDebugEnabled()) {
				logger.debug("A permit could not be given back to Redis; it expires within " + this.ttlMillis + " ms",
						ex);
			}
		}
	}

	/**
	 * Removes the permit of an acquire that failed: Redis may have run its script though the
	 * answer never came back (a timeout), or may run it later (a hung connection delivers it
	 * when it heals), and such a permit, held by no request, would count against the caller
	 * until it expires. The removal goes over the same connection, after the script, so Redis
	 * runs it after the script whenever that runs; it is not awaited, so the request does not
	 * wait for Redis a second time. Removing a permit the script never added does nothing.
	 */
	private void giveBackUnanswered(byte[] redisKey, byte[] id) {
		StatefulConnection<byte[], byte[]> current = this.connection.ifOpen();
		if (current == null) {
			return; // Never connected: the script was not sent.
		}
		try {
			sortedSetsAsync(current).zrem(redisKey, id).whenComplete((removed, failure) -> {
				if (failure != null && logger.isDebugEnabled()) {
					logger.debug("The permit of a failed acquire could not be removed; if Redis ran the script, "
							+ "the permit expires within " + this.ttlMillis + " ms", failure);
				}
			});
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("The permit of a failed acquire could not be removed", ex);
			}
		}
	}

	/**
	 * Renews every permit this replica holds. Runs in the background, never on a request.
	 */
	void renewAll() {
		int failuresInARow = 0;
		for (RedisPermit permit : this.held) {
			try {
				Long renewed = scripting().eval(RENEW, ScriptOutputType.INTEGER, new byte[][] { permit.key }, permit.id,
						this.ttlArgument);
				if (renewed == null || renewed == 0) {
					// Expired already (Redis unreachable for a whole time to live): not ours any more.
					this.held.remove(permit);
					this.lostPermits.increment();
				}
				failuresInARow = 0;
			}
			catch (RuntimeException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("A permit could not be renewed", ex);
				}
				// One timeout must not leave the permits after it unrenewed (they would expire
				// while held); several in a row mean Redis is away, and the next round tries
				// again while the permits live.
				if (++failuresInARow >= RENEWAL_FAILURES_BEFORE_GIVING_UP_A_ROUND) {
					return;
				}
			}
		}
	}

	/**
	 * Opens the connection now, so that the first requests do not pay for connecting. One
	 * attempt, waited for as a request would ({@link LazyConnection}); never fails: if Redis
	 * is down or hangs, the requests connect on first use, and each follows the failure mode
	 * meanwhile.
	 * Nothing is run on the connection: a warm-up command would be one more that an ACL user
	 * must be allowed.
	 * @return whether the connection is open
	 */
	boolean connect() {
		try {
			this.connection.get();
			return true;
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Redis could not be reached for in-flight permits at startup", ex);
			}
			return false;
		}
	}

	/**
	 * Stops renewing without giving anything back, as a replica that dies: its permits are
	 * free again within the time to live.
	 */
	void abandon() {
		this.renewer.shutdownNow();
		this.held.clear();
	}

	@Override
	public long permitsHeld() {
		return this.held.size();
	}

	@Override
	public long keys() {
		return this.held.stream().map((permit) -> new String(permit.key, StandardCharsets.US_ASCII)).distinct().count();
	}

	@Override
	public long refusedForRoom() {
		return 0;
	}

	/**
	 * Returns the permits that expired before they were given back (a failed release, or a
	 * renewal that came too late).
	 * @return the count since the store was created
	 */
	long lostPermits() {
		return this.lostPermits.sum();
	}

	Duration ttl() {
		return Duration.ofMillis(this.ttlMillis);
	}

	byte[] redisKey(BucketKey key) {
		byte[] redisKey = Arrays.copyOf(this.prefix, this.prefix.length + 32);
		byte[] hex = (HEX.toHexDigits(key.high()) + HEX.toHexDigits(key.low())).getBytes(StandardCharsets.US_ASCII);
		System.arraycopy(hex, 0, redisKey, this.prefix.length, 32);
		return redisKey;
	}

	private static byte[] bytes(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@SuppressWarnings("unchecked")
	private RedisScriptingCommands<byte[], byte[]> scripting() {
		StatefulConnection<byte[], byte[]> current = this.connection.get();
		if (current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
			return cluster.sync();
		}
		return ((StatefulRedisConnection<byte[], byte[]>) current).sync();
	}

	@SuppressWarnings("unchecked")
	private RedisSortedSetCommands<byte[], byte[]> sortedSets() {
		StatefulConnection<byte[], byte[]> current = this.connection.get();
		if (current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
			return cluster.sync();
		}
		return ((StatefulRedisConnection<byte[], byte[]>) current).sync();
	}

	@SuppressWarnings("unchecked")
	private static RedisSortedSetAsyncCommands<byte[], byte[]> sortedSetsAsync(
			StatefulConnection<byte[], byte[]> connection) {
		if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
			return cluster.async();
		}
		return ((StatefulRedisConnection<byte[], byte[]>) connection).async();
	}

	@Override
	public void close() {
		this.renewer.shutdownNow();
		StatefulConnection<byte[], byte[]> current = this.connection.ifOpen();
		if (current != null) {
			current.close();
		}
		this.connector.shutdown();
	}

	private final class RedisPermit implements Permit {

		private final byte[] key;

		private final byte[] id;

		private final long remaining;

		RedisPermit(byte[] key, byte[] id, long remaining) {
			this.key = key;
			this.id = id;
			this.remaining = remaining;
		}

		@Override
		public long remaining() {
			return this.remaining;
		}

		@Override
		public void release() {
			RedisPermitStore.this.release(this);
		}

	}

}
