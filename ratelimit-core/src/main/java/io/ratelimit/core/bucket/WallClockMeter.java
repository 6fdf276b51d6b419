package io.ratelimit.core.bucket;

import java.util.concurrent.TimeUnit;

import io.github.bucket4j.TimeMeter;
import io.ratelimit.core.TimeSource;

/**
 * Bucket4j's view of the wall clock, for buckets shared between processes: they need a
 * clock every replica agrees on, and the monotonic clock of each JVM starts anywhere.
 */
public final class WallClockMeter {

	private WallClockMeter() {
	}

	/**
	 * Returns a wall-clock {@link TimeMeter} reading the given time source.
	 * @param time the time source
	 * @return Bucket4j's own millisecond meter for the system time source, else one reading
	 * {@link TimeSource#currentTimeMillis()}
	 */
	public static TimeMeter of(TimeSource time) {
		if (time == TimeSource.system()) {
			return TimeMeter.SYSTEM_MILLISECONDS;
		}
		return new TimeMeter() {

			@Override
			public long currentTimeNanos() {
				return TimeUnit.MILLISECONDS.toNanos(time.currentTimeMillis());
			}

			@Override
			public boolean isWallClockBased() {
				return true;
			}

		};
	}

}
