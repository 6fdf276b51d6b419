package io.ratelimit.core.identity;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The active API keys, held in memory and replaced as a whole on reload, like the
 * policies: the request path asks this set, never the database, so a key that is not in
 * it is unknown at once and an outage of the key table delays nothing. Before the first
 * successful load no key is known (requests with keys are limited by their network); a
 * failed load keeps the keys of the last good one.
 * <p>
 * At most {@code maximumKeys} keys are held: a table with more fails to load, with a
 * message that says so, rather than filling the heap. Unlike an outage of the table, that
 * failure repeats at every reload until someone acts, and keys revoked meanwhile stay
 * valid: {@link #overLimit()} tells it apart, for health and metrics. Reloads are
 * serialized. Thread-safe.
 */
public final class ReloadableApiKeys {

	private static final System.Logger logger = System.getLogger(ReloadableApiKeys.class.getName());

	private final ApiKeySource source;

	private final int maximumKeys;

	private final TimeSource time;

	private final ReentrantLock reloading = new ReentrantLock();

	private volatile ApiKeyDirectory current = ApiKeyDirectory.EMPTY;

	private volatile @Nullable Instant loadedAt;

	private volatile @Nullable String lastFailure;

	private volatile boolean overLimit;

	// Written only under the reload lock, read by metrics from any thread.
	private volatile long loads;

	private volatile long failedReloads;

	// Read and written only under the reload lock.
	private int loggedSkipped;

	/**
	 * Creates a holder that knows no key until {@link #reload()} succeeds.
	 * @param source where the keys come from
	 * @param maximumKeys the most active keys held; a table with more fails to load
	 * @param time the clock load times are read from
	 */
	public ReloadableApiKeys(ApiKeySource source, int maximumKeys, TimeSource time) {
		this.source = Objects.requireNonNull(source, "source must not be null");
		if (maximumKeys < 1 || maximumKeys > Integer.MAX_VALUE / 8) {
			throw new IllegalArgumentException(
					"The maximum number of API keys must be between 1 and " + Integer.MAX_VALUE / 8 + ", but was "
							+ maximumKeys);
		}
		this.maximumKeys = maximumKeys;
		this.time = Objects.requireNonNull(time, "time must not be null");
	}

	/**
	 * Reads the active keys and swaps them in. On failure the keys in use stay.
	 * @return whether the keys were read
	 */
	public boolean reload() {
		this.reloading.lock();
		try {
			List<ApiKey> keys = this.source.loadActive(this.maximumKeys + 1);
			this.overLimit = keys.size() > this.maximumKeys;
			if (this.overLimit) {
				throw new IllegalStateException("the table holds more than " + this.maximumKeys
						+ " active API keys (ratelimit.api-key.maximum-keys); the keys loaded before stay in use, "
						+ "revoked ones included, until the table holds fewer or the maximum is raised");
			}
			ApiKeyDirectory next = ApiKeyDirectory.of(keys);
			this.current = next;
			this.loadedAt = Instant.ofEpochMilli(this.time.currentTimeMillis());
			this.lastFailure = null;
			this.loads++;
			// Said when the number changes, not on every reload.
			if (next.skipped() != this.loggedSkipped) {
				this.loggedSkipped = next.skipped();
				if (next.skipped() > 0) {
					logger.log(System.Logger.Level.WARNING, "Skipped {0} API key rows that are inactive, repeated, have an "
							+ "empty principal, or whose key_hash is not 64 lower-case hex digits", next.skipped());
				}
			}
			return true;
		}
		catch (Exception ex) {
			String failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			this.lastFailure = failure;
			this.failedReloads++;
			logger.log(System.Logger.Level.WARNING, "Could not reload API keys, keeping the {0} loaded before: {1}",
					this.current.size(), failure);
			return false;
		}
		finally {
			this.reloading.unlock();
		}
	}

	/**
	 * Returns the number of active keys in use.
	 * @return the number of keys
	 */
	public int size() {
		return this.current.size();
	}

	/**
	 * Returns whether the most recent read of the table found more active keys than the
	 * maximum (a reload that could not read it changes nothing): every reload fails the same way, and no key issued or revoked since
	 * the last good load takes effect, until the table shrinks or the maximum is raised.
	 * @return whether the key table is over the maximum
	 */
	public boolean overLimit() {
		return this.overLimit;
	}

	/**
	 * Returns the most active keys held.
	 * @return the maximum
	 */
	public int maximumKeys() {
		return this.maximumKeys;
	}

	/**
	 * Returns when the keys in use were read.
	 * @return the load time, {@code null} before the first successful load
	 */
	public @Nullable Instant loadedAt() {
		return this.loadedAt;
	}

	/**
	 * Returns how many loads have succeeded since this holder was created.
	 * @return the number of successful loads
	 */
	public long loads() {
		return this.loads;
	}

	/**
	 * Returns how many reloads have failed since this holder was created.
	 * @return the number of failed reloads
	 */
	public long failedReloads() {
		return this.failedReloads;
	}

	/**
	 * Returns why the most recent reload failed.
	 * @return the failure, or {@code null} if the most recent reload succeeded or none ran
	 */
	public @Nullable String lastFailure() {
		return this.lastFailure;
	}

	ApiKeyDirectory current() {
		return this.current;
	}

}
