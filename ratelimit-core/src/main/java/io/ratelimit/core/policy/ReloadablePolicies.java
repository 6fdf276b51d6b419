package io.ratelimit.core.policy;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Holds the policy snapshot in use and replaces it on reload. Readers see either the old
 * or the new snapshot, never a mix; a failed load keeps the last good snapshot. Before the
 * first successful load the built-in policies apply.
 * <p>
 * Reloads are serialized, so concurrent reload requests are safe and each one reads the
 * table afresh. Listeners added with {@link #addListener} are told about each reload.
 * <p>
 * At most {@code maximumPolicies} rows are read: a table with more fails to load, with a
 * message that says so, rather than filling the heap. Unlike an outage of the table, that
 * failure repeats at every reload until someone acts, and no change to any row takes
 * effect meanwhile: {@link #overLimit()} tells it apart, for health and metrics.
 */
public final class ReloadablePolicies {

	private static final System.Logger logger = System.getLogger(ReloadablePolicies.class.getName());

	/**
	 * The most rows read by default: a million rows are held in about 140 MB and read in a
	 * few seconds (docs/scaling.md), and every change to any row reads them all again.
	 */
	public static final int DEFAULT_MAXIMUM_POLICIES = 1_000_000;

	private final PolicySource source;

	private final int maximumPolicies;

	private final PolicySettings settings;

	private final TimeSource time;

	private final ReentrantLock reloading = new ReentrantLock();

	private final List<Consumer<? super PolicyReloadResult>> listeners = new CopyOnWriteArrayList<>();

	private volatile PolicySnapshot current;

	private volatile @Nullable String lastFailure;

	private volatile boolean overLimit;

	// Written only under the reload lock, read by metrics from any thread.
	private volatile long failedReloads;

	/**
	 * Creates a holder that serves the built-in policies until {@link #reload()} succeeds.
	 * @param source where the rows come from
	 * @param settings the built-in limits, burst factor and known endpoints
	 * @param time the clock load times are read from
	 */
	public ReloadablePolicies(PolicySource source, PolicySettings settings, TimeSource time) {
		this(source, settings, DEFAULT_MAXIMUM_POLICIES, time);
	}

	/**
	 * Creates a holder that serves the built-in policies until {@link #reload()} succeeds.
	 * @param source where the rows come from
	 * @param settings the built-in limits, burst factor and known endpoints
	 * @param maximumPolicies the most rows read; a table with more fails to load
	 * @param time the clock load times are read from
	 */
	public ReloadablePolicies(PolicySource source, PolicySettings settings, int maximumPolicies, TimeSource time) {
		this.source = Objects.requireNonNull(source, "source must not be null");
		if (maximumPolicies < 1) {
			throw new IllegalArgumentException(
					"The maximum number of policy rows must be at least 1, but was " + maximumPolicies);
		}
		this.maximumPolicies = maximumPolicies;
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
		this.current = PolicySnapshot.builtIn(settings, now());
	}

	/**
	 * Returns the settings policies are validated and completed with.
	 * @return the settings
	 */
	public PolicySettings settings() {
		return this.settings;
	}

	/**
	 * Returns the snapshot in use. Cheap: one volatile read.
	 * @return the current snapshot
	 */
	public PolicySnapshot current() {
		return this.current;
	}

	/**
	 * Returns why the most recent reload failed.
	 * @return the failure, or {@code null} if the most recent reload succeeded or none ran
	 */
	public @Nullable String lastFailure() {
		return this.lastFailure;
	}

	/**
	 * Returns whether the most recent read of the table found more rows than the maximum (a
	 * reload that could not read it changes nothing): every reload fails the same way, and
	 * no change to the table takes effect, until it shrinks or the maximum is raised.
	 * @return whether the policy table is over the maximum
	 */
	public boolean overLimit() {
		return this.overLimit;
	}

	/**
	 * Returns the most rows read.
	 * @return the maximum
	 */
	public int maximumPolicies() {
		return this.maximumPolicies;
	}

	/**
	 * Returns how many reloads have failed since this holder was created. Successful loads
	 * are counted by the {@linkplain PolicySnapshot#version() version} of the current
	 * snapshot.
	 * @return the number of failed reloads
	 */
	public long failedReloads() {
		return this.failedReloads;
	}

	/**
	 * Adds a listener told about every reload from now on, successful or not, once the
	 * outcome is in force. Listeners run on the reloading thread while reloads are still
	 * serialized, so they see reloads one at a time and in order; they should be quick. A
	 * listener that throws is logged and affects neither the reload nor other listeners.
	 * @param listener the listener
	 */
	public void addListener(Consumer<? super PolicyReloadResult> listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Reads every row and the tenants' plans, and swaps in the new snapshot. On failure the
	 * current snapshot stays.
	 * @return the outcome
	 */
	public PolicyReloadResult reload() {
		this.reloading.lock();
		try {
			PolicyReloadResult result = load();
			notifyListeners(result);
			return result;
		}
		finally {
			this.reloading.unlock();
		}
	}

	private PolicyReloadResult load() {
		try {
			PolicySnapshot next = read();
			this.current = next;
			this.lastFailure = null;
			next.rejected()
				.forEach((row) -> logger.log(System.Logger.Level.WARNING, "Skipped rate limit policy {0}", row));
			return new PolicyReloadResult(next, null);
		}
		catch (Exception ex) {
			String failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			this.lastFailure = failure;
			this.failedReloads++;
			logger.log(System.Logger.Level.WARNING,
					"Could not reload rate limit policies, keeping version {0}: {1}", this.current.version(), failure);
			return new PolicyReloadResult(this.current, failure);
		}
	}

	private PolicySnapshot read() throws Exception {
		// The table rarely changes much between reloads.
		PolicySnapshot last = this.current;
		PolicySnapshot.Builder builder = new PolicySnapshot.Builder(this.settings,
				Math.min(this.maximumPolicies, last.policies().size() + last.rejected().size()));
		int[] rows = { 0 };
		try {
			this.source.read((row) -> {
				if (++rows[0] > this.maximumPolicies) {
					// Stops the read: the rows beyond the maximum are neither read nor held.
					throw tooManyRows();
				}
				builder.add(row);
			});
		}
		catch (Exception ex) {
			// Only a read that got past the maximum says anything about it.
			if (rows[0] > this.maximumPolicies) {
				this.overLimit = true;
			}
			throw ex;
		}
		this.overLimit = rows[0] > this.maximumPolicies;
		if (this.overLimit) {
			// The source went on after the reader stopped it; its rows are still too many.
			throw tooManyRows();
		}
		return builder.build(this.source.loadTenantPlans(), this.current.version() + 1, now());
	}

	private IllegalStateException tooManyRows() {
		return new IllegalStateException("the table holds more than " + this.maximumPolicies
				+ " policy rows (ratelimit.policy.maximum-policies); the policies loaded before stay in force, and "
				+ "no change to the table takes effect, until it holds fewer or the maximum is raised");
	}

	private void notifyListeners(PolicyReloadResult result) {
		for (Consumer<? super PolicyReloadResult> listener : this.listeners) {
			try {
				listener.accept(result);
			}
			catch (RuntimeException ex) {
				// A broken listener must not turn a good reload into a failed one.
				logger.log(System.Logger.Level.WARNING, "Rate limit policy reload listener failed", ex);
			}
		}
	}

	private Instant now() {
		return Instant.ofEpochMilli(this.time.currentTimeMillis());
	}

}
