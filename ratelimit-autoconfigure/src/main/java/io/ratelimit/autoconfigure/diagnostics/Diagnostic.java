package io.ratelimit.autoconfigure.diagnostics;

/**
 * The misconfigurations the starter warns about. Each code is stable, so operators can
 * search for it and alerting can match it; the message after it says what is wrong, why
 * it matters and what to change. Nothing a request sent (addresses, keys, tokens) is ever
 * part of a message.
 */
public enum Diagnostic {

	/**
	 * Forwarding headers arrive, but no proxy is trusted: behind a proxy every client shares
	 * the proxy's bucket.
	 */
	W001,

	/**
	 * A trusted proxy range is so wide that clients inside it can claim any address.
	 */
	W002,

	/**
	 * {@code server.forward-headers-strategy} (or the cloud platform's default) rewrites the
	 * peer address before the limiter sees it.
	 */
	W003,

	/**
	 * The policy table has no global {@code default} or no {@code UNKNOWN} row, so a
	 * built-in limit from configuration applies.
	 */
	W004,

	/**
	 * A configured weight exceeds the capacity of a policy row that applies to its
	 * endpoint, so the limiter silently enlarges that bucket.
	 */
	W005,

	/**
	 * A policy row names an endpoint template the application does not serve, so the row
	 * is rejected.
	 */
	W006,

	/**
	 * The database could not be reached at startup to create or upgrade the limiter's
	 * tables; the built-in policies apply until it can, and the migration is retried
	 * before each policy load.
	 */
	W007,

	/**
	 * Redis, the store of global policies, failed repeatedly: until it answers again
	 * (tried once per cooldown), global policies are decided by
	 * {@code ratelimit.redis.failure-mode}.
	 */
	W008,

	/**
	 * The database is PostgreSQL and the limiter listens for policy or API key changes, but
	 * the table has no trigger that announces them (the schema was created by hand without
	 * version 3 or 4), so changes arrive only with the periodic refresh.
	 */
	W009,

	/**
	 * Spring Boot opens a JPA {@code EntityManager} for every web request (open-in-view, on
	 * by default) in an application whose only entities are the limiter's, so nothing uses
	 * it.
	 */
	W010,

	/**
	 * A login endpoint of {@code ratelimit.login.endpoints} that nothing of the application
	 * serves (no handler, no Spring Security authentication filter), so its account buckets
	 * protect nothing.
	 */
	W011,

	/**
	 * A route of the application has a pattern no endpoint template can name (too long once
	 * the characters a template cannot hold are escaped), so its requests are charged to
	 * the {@code UNKNOWN} policy.
	 */
	W012,

	/**
	 * A {@code UrlHandlerFilter} sits in one of Spring Security's filter chains, where the
	 * limiter cannot apply it, so requests with a trailing slash it trims are charged to
	 * {@code UNKNOWN} although a handler serves them.
	 */
	W013,

	/**
	 * A policy row can never refuse a request that another row for the same requests admits
	 * (a layered limit looser in both burst and rate than one it is layered with, such as
	 * an hourly count above 3,600 times the per-second rate), so it limits nothing.
	 */
	W014,

	/**
	 * The tenant-to-plan table puts tenants on a plan that no policy row is for, so those
	 * tenants get the rows for everyone: most likely a misspelt plan.
	 */
	W015,

	/**
	 * A group of {@code ratelimit.groups} names an endpoint template the application does
	 * not serve, so limits on the group never count it.
	 */
	W016,
	/**
	 * {@code ratelimit.redis.timeout} is shorter than the flush interval plus eight round
	 * trips to Redis as measured at startup (or no call was answered within it), so calls
	 * to Redis will time out under load and global policies will be decided by the failure
	 * mode.
	 */
	W017,

	/**
	 * A {@code GLOBAL_BATCHED} row's bucket holds fewer tokens than it takes for its credit
	 * share to make a request and refills one within a second, so every replica may admit a
	 * whole request of a key before Redis charges it: up to {@code 2 x n} requests beyond the
	 * limit with n replicas.
	 */
	W018,

	/**
	 * A {@code GLOBAL_BATCHED} row's bucket holds fewer tokens than it takes for its credit
	 * share to make a request and takes more than a second to refill one, so its keys get no
	 * credit: a replica's first request of a key waits for Redis, as under {@code GLOBAL}.
	 */
	W019;

	/**
	 * Returns a log message that starts with this code.
	 * @param text what is wrong, why it matters and what to change
	 * @return the message, e.g. {@code [RATELIMIT-W001] ...}
	 */
	public String message(String text) {
		return "[RATELIMIT-" + name() + "] " + text;
	}

}
