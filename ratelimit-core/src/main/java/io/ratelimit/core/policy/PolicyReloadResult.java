package io.ratelimit.core.policy;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of a reload: the snapshot now in use and, when the load failed, why.
 *
 * @param snapshot the snapshot in use after the reload: the new one, or on failure the
 * last good one
 * @param failure why the rows could not be read, {@code null} on success
 */
public record PolicyReloadResult(PolicySnapshot snapshot, @Nullable String failure) {

	/**
	 * Returns whether the rows were read and a new snapshot is in use.
	 * @return whether the reload succeeded
	 */
	public boolean succeeded() {
		return this.failure == null;
	}

}
