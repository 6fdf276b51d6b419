package io.ratelimit.autoconfigure.migration;

/**
 * The limiter's schema migration as the policy store sees it: something that may still
 * be owed, when the database was unreachable at startup.
 */
@FunctionalInterface
public interface SchemaMigration {

	/**
	 * Creates or upgrades the limiter's tables if that could not be done yet.
	 */
	void migrateIfPending();

}
