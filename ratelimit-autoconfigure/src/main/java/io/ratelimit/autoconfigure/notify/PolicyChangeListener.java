package io.ratelimit.autoconfigure.notify;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
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
 * Reloads the policies as soon as a change to the policy table commits. On PostgreSQL a
 * statement-level trigger on {@code rate_limit_policy} notifies {@value #CHANNEL}; this
 * listener holds one connection that {@code LISTEN}s on it and waits on a daemon thread,
 * so every replica reloads within moments of the commit. The periodic refresh keeps
 * running beside it as the safety net, and is all there is on other databases.
 * <p>
 * Notifications that arrive while a reload runs are folded into one more reload, so a
 * burst of changes costs two reloads, not one per change. A lost connection (a database
 * restart, a failover, a broken network) is reopened with exponential backoff; once
 * listening again the listener reloads, because changes committed meanwhile were
 * announced to nobody. A reload it owes and that fails is retried every second until it
 * succeeds, without waiting for the next notification.
 */
public class PolicyChangeListener implements SmartLifecycle {

	/** The channel the trigger of schema version 3 notifies. */
	public static final String CHANNEL = "rate_limit_policy_changed";

	private static final Log logger = LogFactory.getLog(PolicyChangeListener.class);

	/** A half-open connection raises no error, it only stays quiet; after this long, ask it. */
	private static final Duration VALIDATION_INTERVAL = Duration.ofSeconds(30);

	private static final int VALIDATION_TIMEOUT_SECONDS = 5;

	private static final Duration RELOAD_RETRY = Duration.ofSeconds(1);

	private static final String TRIGGER_QUERY = "SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = "
			+ "'rate_limit_policy'), EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
			+ "WHERE c.relname = 'rate_limit_policy' AND t.tgname = '" + CHANNEL + "')";

	private final ReloadablePolicies policies;

	private final PolicyListenerConnectionFactory connections;

	private final Duration pollTimeout;

	private final Duration initialBackoff;

	private final Duration maxBackoff;

	private final Object lifecycle = new Object();

	// The thread that listens; a thread that finds it is no longer this one stops.
	private volatile @Nullable Thread thread;

	private volatile boolean listening;

	// Read and written by the listening thread only.
	private boolean triggerChecked;

	/**
	 * Creates a listener that waits half a second at a time, so it stops within that, and
	 * reconnects after 250 ms, doubling up to 5 s.
	 * @param policies the policies to reload
	 * @param connections opens the connection to listen on
	 */
	public PolicyChangeListener(ReloadablePolicies policies, PolicyListenerConnectionFactory connections) {
		this(policies, connections, Duration.ofMillis(500), Duration.ofMillis(250), Duration.ofSeconds(5));
	}

	/**
	 * Creates a listener.
	 * @param policies the policies to reload
	 * @param connections opens the connection to listen on
	 * @param pollTimeout how long one wait for notifications lasts, and so how long
	 * {@link #stop()} may take
	 * @param initialBackoff how long to wait before the first attempt to reconnect
	 * @param maxBackoff the longest wait between attempts to reconnect
	 */
	public PolicyChangeListener(ReloadablePolicies policies, PolicyListenerConnectionFactory connections,
			Duration pollTimeout, Duration initialBackoff, Duration maxBackoff) {
		Assert.notNull(policies, "policies must not be null");
		Assert.notNull(connections, "connections must not be null");
		Assert.isTrue(pollTimeout.toMillis() >= 1, () -> "pollTimeout must be at least 1ms: " + pollTimeout);
		Assert.isTrue(initialBackoff.toMillis() >= 1, () -> "initialBackoff must be at least 1ms: " + initialBackoff);
		Assert.isTrue(maxBackoff.compareTo(initialBackoff) >= 0,
				() -> "maxBackoff must not be less than initialBackoff: " + maxBackoff);
		this.policies = policies;
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
	 * Returns whether a connection is listening for policy changes right now: false before
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
					logger.warn("Not listening for rate limit policy changes (" + ex.getMessage() + "); reconnecting. "
							+ "Until then changes arrive with the periodic refresh (ratelimit.policy.refresh-interval).");
					failing = true;
				}
				else if (logger.isDebugEnabled()) {
					logger.debug("Still not listening for rate limit policy changes: " + ex.getMessage());
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
				logger.info("Rate limit policy changes arrive with the periodic refresh only: the database is not "
						+ "PostgreSQL, so there are no notifications to listen for");
				return false;
			}
			PGConnection notifications = listen(connection);
			this.listening = true;
			if (reconnecting) {
				logger.info("Listening for rate limit policy changes again");
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Listening for rate limit policy changes on channel " + CHANNEL);
			}
			awaitNotifications(connection, notifications);
			return true;
		}
		finally {
			this.listening = false;
		}
	}

	private static PGConnection listen(Connection connection) throws SQLException {
		// LISTEN inside an open transaction would take effect only at its commit.
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			statement.execute("LISTEN " + CHANNEL);
		}
		return connection.unwrap(PGConnection.class);
	}

	private void awaitNotifications(Connection connection, PGConnection notifications) throws SQLException {
		// Changes committed before LISTEN took effect were announced to nobody.
		boolean reloadOwed = true;
		long retryAt = System.nanoTime();
		long quietSince = retryAt;
		while (isCurrent()) {
			if (reloadOwed && System.nanoTime() - retryAt >= 0) {
				reloadOwed = !reload(connection);
				retryAt = System.nanoTime() + RELOAD_RETRY.toNanos();
			}
			PGNotification[] received = notifications.getNotifications((int) this.pollTimeout.toMillis());
			if (received != null && received.length > 0) {
				// However many arrived, one reload reads every change they announce.
				reloadOwed = true;
				retryAt = System.nanoTime();
				quietSince = retryAt;
			}
			else if (System.nanoTime() - quietSince >= VALIDATION_INTERVAL.toNanos()) {
				if (!connection.isValid(VALIDATION_TIMEOUT_SECONDS)) {
					throw new SQLException("the listening connection stopped answering");
				}
				quietSince = System.nanoTime();
			}
		}
	}

	private boolean reload(Connection connection) throws SQLException {
		PolicyReloadResult result = this.policies.reload();
		if (!result.succeeded()) {
			return false;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Reloaded rate limit policies on notification: version " + result.snapshot().version());
		}
		if (!this.triggerChecked) {
			checkTrigger(connection);
		}
		return true;
	}

	/**
	 * Warns once when the table exists but has no trigger, e.g. because the schema was
	 * applied by hand without version 3: the listener would wait for nothing.
	 */
	private void checkTrigger(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(TRIGGER_QUERY)) {
			if (!result.next() || !result.getBoolean(1)) {
				return;
			}
			this.triggerChecked = true;
			if (!result.getBoolean(2)) {
				logger.warn(Diagnostic.W009.message("The rate_limit_policy table has no '" + CHANNEL + "' trigger, "
						+ "so policy changes reach this application only with the periodic refresh "
						+ "(ratelimit.policy.refresh-interval). Apply the PostgreSQL migration "
						+ "db/migration/postgresql/V3__notify_policy_changes.sql (ratelimit.schema.migrate=true does), "
						+ "or set ratelimit.policy.notify.enabled=false."));
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

}
