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
 * zone; a Redis farther away makes every call time out under load, and global policies then
 * run on the failure mode for good, which nothing else would say until the first outage
 * warning. A batched call waits up to one flush interval for its write, then takes a round
 * trip per attempt, and replicas that contend on a key retry: the timeout should cover the
 * flush interval and {@value #ROUND_TRIPS} round trips. Measured in docs/scaling.md with 40
 * ms round trips and a 10 ms flush interval: 230 ms (five round trips) ran a hot key on the
 * failure mode, 290 ms still fell back once, 350 ms never; the rule asks for 410 ms.
 */
final class RedisTimeoutCheck {

	private static final Log logger = LogFactory.getLog(RedisTimeoutCheck.class);

	static final int ROUND_TRIPS = 10;

	private static final long ROUNDING_MILLIS = 10;

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
	 * refused or failed otherwise than by not answering in time (down, a wrong password:
	 * not the timeout's fault)
	 */
	static @Nullable String problem(Duration timeout, Duration flushInterval, RedisBucketStore.WarmUp warmUp) {
		String setting = "ratelimit.redis.timeout=" + timeout.toMillis() + "ms";
		String consequence = "calls to Redis will time out, and global policies will be decided by "
				+ "ratelimit.redis.failure-mode instead of Redis. ";
		Duration fastest = warmUp.fastest();
		if (fastest == null) {
			if (warmUp.timedOut() == 0) {
				return null;
			}
			return "Redis answered none of the " + warmUp.timedOut() + " calls of the startup warm-up within "
					+ setting + " (connecting takes a round trip or two): it hangs, or it is farther away than the "
					+ "timeout allows. Until it answers in time, " + consequence + "If Redis is far away, set "
					+ "ratelimit.redis.timeout to at least ratelimit.redis.batch.flush-interval plus "
					+ ROUND_TRIPS + " round trips.";
		}
		Duration needed = flushInterval.plus(fastest.multipliedBy(ROUND_TRIPS));
		if (timeout.compareTo(needed) >= 0) {
			return null;
		}
		long suggested = (needed.toMillis() / ROUNDING_MILLIS + 1) * ROUNDING_MILLIS;
		return "A round trip to Redis took " + millis(fastest) + " at startup (the fastest decision of the "
				+ "warm-up), too long for " + setting + ": a batched call waits up to "
				+ "ratelimit.redis.batch.flush-interval=" + flushInterval.toMillis() + "ms for its write, then "
				+ "takes a round trip per attempt, and replicas contending on a key retry. Under load "
				+ consequence + "Set ratelimit.redis.timeout to at least " + suggested + "ms (the flush interval "
				+ "plus " + ROUND_TRIPS + " round trips).";
	}

	private static String millis(Duration duration) {
		return String.format(Locale.ROOT, "%.1f ms", duration.toNanos() / 1e6);
	}

}
