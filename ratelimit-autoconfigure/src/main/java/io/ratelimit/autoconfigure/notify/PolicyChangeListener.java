package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Reloads the policies, and the API keys when the key tier is on, as soon as a change to
 * their table commits. On PostgreSQL statement-level triggers on {@code rate_limit_policy}
 * (and {@code rate_limit_tenant_plan}, whose plans are part of the policies) and on
 * {@code rate_limit_api_key} notify {@value #CHANNEL} and {@value #API_KEY_CHANNEL};
 * this listener holds one connection that {@code LISTEN}s on both and waits on a daemon
 * thread, so every replica reloads within moments of the commit, and a revoked key stops
 * working everywhere at once. Each table is reloaded only when its own channel speaks. The
 * periodic refresh keeps running beside it as the safety net, and is all there is on other
 * databases.
 * <p>
 * Notifications that arrive while a reload runs are folded into one more reload, so a
 * burst of changes costs two reloads, not one per change. A lost connection (a database
 * restart, a failover, a broken network) is reopened with exponential backoff; once
 * listening again the listener reloads, because changes committed meanwhile were
 * announced to nobody. A reload it owes and that fails is retried after a second,
 * doubling up to 30 s, without waiting for the next notification; notifications do not
 * bring a pending retry forward, so a table that cannot be loaded (say it holds more keys
 * than allowed) is not read again at the rate it changes.
 */
public class PolicyChangeListener implements SmartLifecycle {

	/** The channel the policy table's trigger (schema version 3) notifies. */
	public static final String CHANNEL = "rate_limit_policy_changed";

	/** The channel the API key table's trigger (schema version 4) notifies. */
	public static final String API_KEY_CHANNEL = "rate_limit_api_key_changed";

	private static final Log logger = LogFactory.getLog(PolicyChangeListener.class);

	/** A half-open connection raises no error, it only stays quiet; after this long, ask it. */
	private static final Duration VALIDATION_INTERVAL = Duration.ofSeconds(30);

	private static final int VALIDATION_TIMEOUT_SECONDS = 5;

	private static final Duration RELOAD_RETRY = Duration.ofSeconds(1);

	private static final Duration MAX_RELOAD_RETRY = Duration.ofSeconds(30);

	private final List<Subscription> subscriptions;

	private final PolicyListenerConnectionFactory connections;

	private final Duration pollTimeout;

	private final Duration initialBackoff;

	private final Duration maxBackoff;

	private final Object lifecycle = new Object();

	// The thread that listens; a thread that finds it is no longer this one stops.
	private volatile @Nullable Thread thread;

	private volatile boolean listening;

	/**
	 * Creates a listener that waits half a second at a time, so it stops within that, and
	 * reconnects after 250 ms, doubling up to 5 s.
	 * @param policies the policies to reload
	 * @param apiKeys the API keys to reload, {@code null} when the key tier is off
	 * @param connections opens the connection to listen on
	 */
	public PolicyChangeListener(ReloadablePolicies policies, @Nullable ReloadableApiKeys apiKeys,
			PolicyListenerConnectionFactory connections) {
		this(policies, apiKeys, connections, Duration.ofMillis(500), Duration.ofMillis(250), Duration.ofSeconds(5));
	}

	/**
	 * Creates a listener.
	 * @param policies the policies to reload
	 * @param apiKeys the API keys to reload, {@code null} when the key tier is off
	 * @param connections opens the connection to listen on
	 * @param pollTimeout how long one wait for notifications lasts, and so how long
	 * {@link #stop()} may take
	 * @param initialBackoff how long to wait before the first attempt to reconnect
	 * @param maxBackoff the longest wait between attempts to reconnect
	 */
	public PolicyChangeListener(ReloadablePolicies policies, @Nullable ReloadableApiKeys apiKeys,
			PolicyListenerConnectionFactory connections, Duration pollTimeout, Duration initialBackoff,
			Duration maxBackoff) {
		Assert.notNull(policies, "policies must not be null");
		Assert.notNull(connections, "connections must not be null");
		Assert.isTrue(pollTimeout.toMillis() >= 1, () -> "pollTimeout must be at least 1ms: " + pollTimeout);
		Assert.isTrue(initialBackoff.toMillis() >= 1, () -> "initialBackoff must be at least 1ms: " + initialBackoff);
		Assert.isTrue(maxBackoff.compareTo(initialBackoff) >= 0,
				() -> "maxBackoff must not be less than initialBackoff: " + maxBackoff);
		List<Subscription> subscriptions = new ArrayList<>();
		// The tenants' plans are part of the policies: their table notifies the policies' channel.
		subscriptions.add(new Subscription(CHANNEL, () -> reload(policies),
				new Trigger("rate_limit_policy", CHANNEL, "rate limit policies", "V3__notify_policy_changes.sql"),
				new Trigger("rate_limit_tenant_plan", "rate_limit_tenant_plan_changed", "tenants' plans",
						"V6__plans.sql")));
		if (apiKeys != null) {
			subscriptions.add(new Subscription(API_KEY_CHANNEL, () -> reload(apiKeys),
					new Trigger("rate_limit_api_key", API_KEY_CHANNEL, "API keys", "V4__notify_api_key_changes.sql")));
		}
		this.subscriptions = List.copyOf(subscriptions);
		this.connections = connections;
		this.pollTimeout = pollTimeout;
		this.initialBackoff = initialBackoff;
		this.maxBackoff = maxBackoff;
	}

	@Override
	public void start() {
		synchronized (this.lifecycle) {
			if (this.thread != null) {
				return;
			}
			Thread listener = new Thread(this::run, "ratelimit-policy-listener");
			listener.setDaemon(true);
			this.thread = listener;
			listener.start();
		}
	}

	/**
	 * Stops listening and closes the connection. Returns once the listening thread ends,
	 * which is within the poll timeout unless it is connecting or reloading; it is a daemon
	 * and finishes that on its own.
	 */
	@Override
	public void stop() {
		Thread listener;
		synchronized (this.lifecycle) {
			listener = this.thread;
			this.thread = null;
			this.lifecycle.notifyAll();
		}
		if (listener != null && listener != Thread.currentThread()) {
			try {
				listener.join(this.pollTimeout.toMillis() + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.thread != null;
	}

	/**
	 * Returns whether a connection is listening for changes right now: false before
	 * the first connection, while reconnecting, when stopped, and for good on a database
	 * that is not PostgreSQL.
	 * @return whether changes are being listened for
	 */
	public boolean isListening() {
		return this.listening;
	}

	private boolean isCurrent() {
		return this.thread == Thread.currentThread();
	}

	private void run() {
		long backoff = this.initialBackoff.toMillis();
		boolean failing = false;
		while (isCurrent()) {
			try {
				if (!listenUntilStopped(failing)) {
					return;
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (!isCurrent()) {
					return;
				}
				if (!failing) {
					logger.warn("Not listening for rate limit policy and API key changes (" + ex.getMessage() + "); reconnecting. "
							+ "Until then changes arrive with the periodic refresh (ratelimit.policy.refresh-interval).");
					failing = true;
				}
				else if (logger.isDebugEnabled()) {
					logger.debug("Still not listening for rate limit policy and API key changes: " + ex.getMessage());
				}
				pause(backoff);
				backoff = Math.min(backoff * 2, this.maxBackoff.toMillis());
				continue;
			}
			backoff = this.initialBackoff.toMillis();
		}
	}

	/**
	 * Connects, listens and reloads on each notification until stopped.
	 * @return false if there is nothing to listen to
	 */
	private boolean listenUntilStopped(boolean reconnecting) throws SQLException {
		try (Connection connection = this.connections.connect()) {
			if (connection == null) {
				logger.info("Rate limit policy and API key changes arrive with the periodic refresh only: the database is not "
						+ "PostgreSQL, so there are no notifications to listen for");
				return false;
			}
			PGConnection notifications = listen(connection, this.subscriptions);
			this.listening = true;
			if (reconnecting) {
				logger.info("Listening for rate limit policy and API key changes again");
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Listening for rate limit changes on channels "
						+ this.subscriptions.stream().map((subscription) -> subscription.channel).toList());
			}
			awaitNotifications(connection, notifications);
			return true;
		}
		finally {
			this.listening = false;
		}
	}

	private static PGConnection listen(Connection connection, List<Subscription> subscriptions)
			throws SQLException {
		// LISTEN inside an open transaction would take effect only at its commit.
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			for (Subscription subscription : subscriptions) {
				statement.execute("LISTEN " + subscription.channel);
			}
		}
		return connection.unwrap(PGConnection.class);
	}

	private void awaitNotifications(Connection connection, PGConnection notifications) throws SQLException {
		long now = System.nanoTime();
		for (Subscription subscription : this.subscriptions) {
			// Changes committed before LISTEN took effect were announced to nobody.
			subscription.owe(now);
		}
		long quietSince = now;
		while (isCurrent()) {
			for (Subscription subscription : this.subscriptions) {
				if (subscription.isDue(System.nanoTime())) {
					reload(connection, subscription);
				}
			}
			PGNotification[] received = notifications.getNotifications((int) this.pollTimeout.toMillis());
			if (received != null && received.length > 0) {
				now = System.nanoTime();
				// However many arrived, one reload per table reads every change they announce.
				for (PGNotification notification : received) {
					for (Subscription subscription : this.subscriptions) {
						if (subscription.channel.equals(notification.getName())) {
							subscription.owe(now);
						}
					}
				}
				quietSince = now;
			}
			else if (System.nanoTime() - quietSince >= VALIDATION_INTERVAL.toNanos()) {
				if (!connection.isValid(VALIDATION_TIMEOUT_SECONDS)) {
					throw new SQLException("the listening connection stopped answering");
				}
				quietSince = System.nanoTime();
			}
		}
	}

	private void reload(Connection connection, Subscription subscription) throws SQLException {
		if (!subscription.reload.getAsBoolean()) {
			subscription.failed(System.nanoTime());
			return;
		}
		subscription.paid();
		for (Trigger trigger : subscription.triggers) {
			if (!trigger.checked) {
				checkTrigger(connection, trigger);
			}
		}
	}

	private static boolean reload(ReloadablePolicies policies) {
		PolicyReloadResult result = policies.reload();
		if (result.succeeded() && logger.isDebugEnabled()) {
			logger.debug("Reloaded rate limit policies on notification: version " + result.snapshot().version());
		}
		return result.succeeded();
	}

	private static boolean reload(ReloadableApiKeys apiKeys) {
		boolean succeeded = apiKeys.reload();
		if (succeeded && logger.isDebugEnabled()) {
			logger.debug("Reloaded API keys on notification: " + apiKeys.size() + " active");
		}
		return succeeded;
	}

	/**
	 * Warns once per table when it exists but has no trigger, e.g. because the schema was
	 * applied by hand without the notifying version, or its trigger was dropped: the
	 * listener would wait for nothing.
	 */
	private static void checkTrigger(Connection connection, Trigger trigger) throws SQLException {
		// The names are this class's constants, never input.
		String query = "SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = '" + trigger.table
				+ "'), EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relname = '"
				+ trigger.table + "' AND t.tgname = '" + trigger.name + "')";
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
			if (!result.next() || !result.getBoolean(1)) {
				return;
			}
			trigger.checked = true;
			if (!result.getBoolean(2)) {
				logger.warn(Diagnostic.W009.message("The " + trigger.table + " table has no '" + trigger.name
						+ "' trigger, so changes to the " + trigger.what
						+ " reach this application only with the periodic refresh (ratelimit.policy.refresh-interval). "
						+ "Apply the PostgreSQL migration db/migration/postgresql/" + trigger.migration
						+ " (ratelimit.schema.migrate=true does), or set ratelimit.policy.notify.enabled=false."));
			}
		}
	}

	private void pause(long millis) {
		synchronized (this.lifecycle) {
			if (isCurrent()) {
				try {
					this.lifecycle.wait(millis);
				}
				catch (InterruptedException ex) {
					// Whoever interrupts a daemon thread wants it gone.
					this.thread = null;
					Thread.currentThread().interrupt();
				}
			}
		}
	}

	/**
	 * A trigger that notifies a channel: its table, what the table holds, the migration that
	 * creates it, and whether it has been looked for. Used by the listening thread only.
	 */
	private static final class Trigger {

		final String table;

		final String name;

		final String what;

		final String migration;

		boolean checked;

		Trigger(String table, String name, String what, String migration) {
			this.table = table;
			this.name = name;
			this.what = what;
			this.migration = migration;
		}

	}

	/**
	 * One channel listened for: how to reload what it announces, the triggers that notify
	 * it, and the reload it is owed. Used by the listening thread only.
	 */
	private static final class Subscription {

		final String channel;

		final BooleanSupplier reload;

		final List<Trigger> triggers;

		private boolean owed;

		private long dueAt;

		private int failures;

		Subscription(String channel, BooleanSupplier reload, Trigger... triggers) {
			this.channel = channel;
			this.reload = reload;
			this.triggers = List.of(triggers);
		}

		void owe(long now) {
			if (!this.owed || this.failures == 0) {
				this.dueAt = now;
			}
			this.owed = true;
		}

		void failed(long now) {
			long delay = RELOAD_RETRY.toNanos() << Math.min(this.failures, 5);
			this.dueAt = now + Math.min(delay, MAX_RELOAD_RETRY.toNanos());
			this.failures++;
		}

		void paid() {
			this.owed = false;
			this.failures = 0;
		}

		boolean isDue(long now) {
			return this.owed && now - this.dueAt >= 0;
		}

	}

}
