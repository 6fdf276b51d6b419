package io.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Loads the policies, and the API keys when the key tier is on, once the application has
 * started, then again at a fixed interval. A failed load keeps the last good policies (the
 * built-in ones if none loaded yet) or keys and is retried at the next interval; it never
 * stops the application. On PostgreSQL the
 * {@link io.ratelimit.autoconfigure.notify.PolicyChangeListener} brings changes at once,
 * and this refresh is the safety net for whatever a notification could not.
 */
public class PolicyRefresher implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(PolicyRefresher.class);

	private final ReloadablePolicies policies;

	private final @Nullable ReloadableApiKeys apiKeys;

	private final Duration interval;

	private @Nullable ScheduledExecutorService scheduler;

	public PolicyRefresher(ReloadablePolicies policies, @Nullable ReloadableApiKeys apiKeys, Duration interval) {
		this.policies = policies;
		this.apiKeys = apiKeys;
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		reload();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-policy-refresh");
			thread.setDaemon(true);
			return thread;
		});
		long millis = this.interval.toMillis();
		scheduler.scheduleWithFixedDelay(this::reloadAndCarryOn, millis, millis, TimeUnit.MILLISECONDS);
		this.scheduler = scheduler;
	}

	@Override
	public synchronized void stop() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

	/**
	 * A scheduled task that throws is never run again: whatever one reload meets (a key
	 * table too large for the heap, say), the next one still runs.
	 */
	private void reloadAndCarryOn() {
		try {
			reload();
		}
		catch (RuntimeException | OutOfMemoryError ex) {
			logger.error("Reloading rate limit policies and API keys failed; trying again in " + this.interval, ex);
		}
	}

	private void reload() {
		PolicyReloadResult result = this.policies.reload();
		if (result.succeeded() && logger.isDebugEnabled()) {
			logger.debug("Loaded rate limit policies version " + result.snapshot().version() + ": "
					+ result.snapshot().policies().size() + " policies, " + result.snapshot().rejected().size()
					+ " rows rejected");
		}
		if (this.apiKeys != null && this.apiKeys.reload() && logger.isDebugEnabled()) {
			logger.debug("Loaded " + this.apiKeys.size() + " active API keys");
		}
	}

}
