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
 */
public final class ReloadablePolicies {

	private static final System.Logger logger = System.getLogger(ReloadablePolicies.class.getName());

	private final PolicySource source;

	private final PolicySettings settings;

	private final TimeSource time;

	private final ReentrantLock reloading = new ReentrantLock();

	private final List<Consumer<? super PolicyReloadResult>> listeners = new CopyOnWriteArrayList<>();

	private volatile PolicySnapshot current;

	private volatile @Nullable String lastFailure;

	// Written only under the reload lock, read by metrics from any thread.
	private volatile long failedReloads;

	/**
	 * Creates a holder that serves the built-in policies until {@link #reload()} succeeds.
	 * @param source where the rows come from
	 * @param settings the built-in limits, burst factor and known endpoints
	 * @param time the clock load times are read from
	 */
	public ReloadablePolicies(PolicySource source, PolicySettings settings, TimeSource time) {
		this.source = Objects.requireNonNull(source, "source must not be null");
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
			PolicySnapshot next = PolicySnapshot.of(this.source.load(), this.source.loadTenantPlans(), this.settings,
					this.current.version() + 1, now());
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
