package io.ratelimit.client;

import java.util.random.RandomGenerator;

/**
 * Creates the {@link Pacing} state of a strategy for each target. The strategies of the
 * library are in {@code io.ratelimit.client.strategy.PacingStrategies}.
 */
@FunctionalInterface
public interface PacingStrategy {

	/**
	 * Returns the pacing state for a target seen for the first time.
	 * @param target the target
	 * @param random the source of the strategy's jitter, owned by the new state
	 * @param nowNanos the monotonic time
	 * @return the new state
	 */
	Pacing newPacing(Target target, RandomGenerator random, long nowNanos);

}
