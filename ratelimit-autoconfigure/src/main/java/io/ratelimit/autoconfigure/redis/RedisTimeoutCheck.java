package io.ratelimit.autoconfigure.redis;

import java.time.Duration;
import java.util.Locale;

import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Warns once at startup ({@link Diagnostic#W017}) when {@code ratelimit.redis.timeout} is too
 * short for the Redis the warm-up measured. The default of 100 ms suits a Redis in the same
 * zone; a Redis farther away makes calls time out under load, and global policies then run
 * on the failure mode, which nothing else would explain. A batched call waits up to one
 * flush interval for its write, then takes a round trip per attempt, and replicas that
 * contend on a key retry. Measured in docs/scaling.md with 40 ms round trips and a 10 ms
 * flush interval: a hot key ran on the failure mode with a 230 ms timeout, fell back once
 * at 290 ms (about seven round trips), never at 350 ms or more. So this warns below the
 * flush interval plus {@value #WARN_BELOW_ROUND_TRIPS} round trips, and asks for
 * {@value #SUGGESTED_ROUND_TRIPS}, which a round trip measured a little slow still meets.
 */
final class RedisTimeoutCheck {

	private static final Log logger = LogFactory.getLog(RedisTimeoutCheck.class);

	static final int WARN_BELOW_ROUND_TRIPS = 8;

	static final int SUGGESTED_ROUND_TRIPS = 10;

	private static final long ROUNDING_NANOS = Duration.ofMillis(10).toNanos();

	private RedisTimeoutCheck() {
	}

	static void warnIfTooShort(Duration timeout, Duration flushInterval, RedisBucketStore.WarmUp warmUp) {
		String problem = problem(timeout, flushInterval, warmUp);
		if (problem != null && logger.isWarnEnabled()) {
			logger.warn(Diagnostic.W017.message(problem));
		}
	}

	/**
	 * What is wrong with the timeout, if anything.
	 * @return the warning's text, or {@code null} if the timeout is long enough, or if Redis
	 * refused or failed fast (down, a wrong password: not the timeout's doing)
	 */
	static @Nullable String problem(Duration timeout, Duration flushInterval, RedisBucketStore.WarmUp warmUp) {
		String setting = "ratelimit.redis.timeout=" + timeout.toMillis() + "ms";
		String consequence = "calls to Redis time out, and global policies are decided by "
				+ "ratelimit.redis.failure-mode instead of Redis. ";
		String rule = "the batch flush interval (ratelimit.redis.batch.flush-interval=" + flushInterval.toMillis()
				+ "ms) plus " + SUGGESTED_ROUND_TRIPS + " round trips";
		Duration fastest = warmUp.fastest();
		if (fastest == null) {
			if (warmUp.timedOut() == 0) {
				return null;
			}
			if (!warmUp.connected()) {
				return "No connection to Redis could be opened within " + setting + " at startup ("
						+ warmUp.timedOut() + " attempts ran out of time; connecting, with TLS and the handshake, "
						+ "takes several round trips): Redis is unreachable (a host that drops packets), hangs, or "
						+ "is farther away than the timeout allows. Until a connection opens, " + consequence
						+ "If Redis is far away, set ratelimit.redis.timeout to at least " + rule + ".";
			}
			return "Redis answered too few of the startup warm-up's decisions within " + setting + " ("
					+ warmUp.timedOut() + " ran out of time): it is farther away or slower than the timeout allows, "
					+ "and under load " + consequence + "Set ratelimit.redis.timeout to at least " + rule + ".";
		}
		if (timeout.compareTo(flushInterval.plus(fastest.multipliedBy(WARN_BELOW_ROUND_TRIPS))) >= 0) {
			return null;
		}
		long needed = flushInterval.plus(fastest.multipliedBy(SUGGESTED_ROUND_TRIPS)).toNanos();
		long suggested = Duration.ofNanos((needed + ROUNDING_NANOS - 1) / ROUNDING_NANOS * ROUNDING_NANOS).toMillis();
		return "A round trip to Redis took " + millis(fastest) + " at startup (the fastest warm decision), too "
				+ "long for " + setting + ": a batched call waits up to the flush interval for its write, then takes "
				+ "a round trip per attempt, and replicas contending on a key retry. Under load " + consequence
				+ "Set ratelimit.redis.timeout to at least " + suggested + "ms (" + rule + ").";
	}

	private static String millis(Duration duration) {
		return String.format(Locale.ROOT, "%.1f ms", duration.toNanos() / 1e6);
	}

}
