package io.ratelimit.autoconfigure.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.notify.PolicyChangeListener;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The portable migrations plus each vendor's own: the same versions and a consistent
 * history on H2 and PostgreSQL, fresh or upgraded from version 2 (on both) or 5 with rows
 * that keep their meaning, and on PostgreSQL triggers that announce each changing
 * statement once, on each table's own channel.
 */
class RateLimitSchemaMigrationVendorTest {

	@RegisterExtension
	static final PostgresDatabase fresh = TestPostgres.newDatabase();

	@RegisterExtension
	static final PostgresDatabase upgraded = TestPostgres.newDatabase();

	@RegisterExtension
	static final PostgresDatabase fromFive = TestPostgres.newDatabase();

	@Test
	void migrateWhenH2ThenNotifyVersionsAreRecordedAndChangeNothing() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();
		// Again, as on the next start: the history validates and nothing is pending.
		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();

		assertThat(history(dataSource)).containsExactly("1 V1__create_rate_limit_tables.sql true",
				"2 V2__add_policy_scope.sql true", "3 V3__notify_policy_changes.sql true",
				"4 V4__notify_api_key_changes.sql true", "5 V5__layered_limits.sql true", "6 V6__plans.sql true");
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('default', 1)");
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, "
				+ "limit_window, counts) VALUES ('default', 'hourly', 'API', 5000, 'PT1H', 'REQUESTS')");
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_api_key (key_hash, principal) VALUES ('h', 'p')");
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_policy (endpoint, plan, rps_limit) VALUES ('default', 'free', 1)");
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES ('acme', 'free')");
	}

	@Test
	void migrateWhenH2AtVersionTwoWithRowsThenUpgradesToSixAndEveryRowKeepsItsMeaning() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		// A database the previous release migrated: versions 1 and 2 under the same script names.
		migrateTo("2", dataSource, RateLimitSchemaMigration.COMMON_LOCATION);
		JdbcTemplate sql = new JdbcTemplate(dataSource);
		sql.update("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('default', NULL, 3)");
		sql.update("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit, scope) "
				+ "VALUES ('GET /api/orders', 'acme', 9, 'GLOBAL')");
		sql.update("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('h', 'p', 'acme')");

		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();

		assertThat(history(dataSource)).containsExactly("1 V1__create_rate_limit_tables.sql true",
				"2 V2__add_policy_scope.sql true", "3 V3__notify_policy_changes.sql true",
				"4 V4__notify_api_key_changes.sql true", "5 V5__layered_limits.sql true", "6 V6__plans.sql true");
		// Each row of the previous release is still its endpoint's own limit, per second,
		// counting weights, for the same tenant and scope, on no plan.
		assertThat(sql.queryForList("SELECT endpoint || ' ' || COALESCE(project_id, '-') || ' ' || COALESCE(plan, '-')"
				+ " || ' ' || rps_limit || ' ' || scope || ' ' || COALESCE(limit_name, '-') || ' ' || applies_to || ' '"
				+ " || counts || ' ' || COALESCE(limit_count, 0) FROM rate_limit_policy ORDER BY id", String.class))
			.containsExactly("default - - 3.000000 LOCAL - ENDPOINT POINTS 0",
					"GET /api/orders acme - 9.000000 GLOBAL - ENDPOINT POINTS 0");
		assertThat(sql.queryForList("SELECT principal || ' ' || project_id || ' ' || COALESCE(plan, '-') "
				+ "FROM rate_limit_api_key", String.class))
			.containsExactly("p acme -");
		assertThat(sql.queryForObject("SELECT COUNT(*) FROM rate_limit_tenant_plan", Integer.class)).isZero();
	}

	@Test
	void migrateWhenPostgresThenTriggerNotifiesOncePerStatement() throws Exception {
		DataSource dataSource = dataSource(fresh);

		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();
		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();

		assertThat(history(dataSource)).containsExactly("1 V1__create_rate_limit_tables.sql true",
				"2 V2__add_policy_scope.sql true", "3 V3__notify_policy_changes.sql true",
				"4 V4__notify_api_key_changes.sql true", "5 V5__layered_limits.sql true", "6 V6__plans.sql true");
		try (Connection listener = fresh.connect(); Connection writer = fresh.connect()) {
			try (Statement listen = listener.createStatement()) {
				listen.execute("LISTEN " + PolicyChangeListener.CHANNEL);
			}
			assertThat(notificationsAfter(listener, writer, "INSERT INTO rate_limit_policy (endpoint, rps_limit) "
					+ "VALUES ('default', 1), ('UNKNOWN', 1), ('GET /a', 1)")).isOne();
			assertThat(notificationsAfter(listener, writer, "UPDATE rate_limit_policy SET rps_limit = 2")).isOne();
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_policy WHERE endpoint = 'GET /a'"))
				.isOne();
			assertThat(notificationsAfter(listener, writer, "TRUNCATE rate_limit_policy")).isOne();
			// Other tables stay quiet.
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_api_key")).isZero();
		}
		try (Connection listener = fresh.connect(); Connection writer = fresh.connect()) {
			try (Statement listen = listener.createStatement()) {
				listen.execute("LISTEN " + PolicyChangeListener.API_KEY_CHANNEL);
			}
			assertThat(notificationsAfter(listener, writer, "INSERT INTO rate_limit_api_key (key_hash, principal) "
					+ "VALUES ('a', 'p'), ('b', 'p'), ('c', 'p')")).isOne();
			assertThat(notificationsAfter(listener, writer, "UPDATE rate_limit_api_key SET active = false")).isOne();
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_api_key WHERE key_hash = 'a'"))
				.isOne();
			assertThat(notificationsAfter(listener, writer, "TRUNCATE rate_limit_api_key")).isOne();
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_policy")).isZero();
		}
		// A tenant's plan is part of the policies: its changes reload them.
		try (Connection listener = fresh.connect(); Connection writer = fresh.connect()) {
			try (Statement listen = listener.createStatement()) {
				listen.execute("LISTEN " + PolicyChangeListener.CHANNEL);
			}
			assertThat(notificationsAfter(listener, writer, "INSERT INTO rate_limit_tenant_plan (project_id, plan) "
					+ "VALUES ('acme', 'free'), ('globex', 'free')")).isOne();
			assertThat(notificationsAfter(listener, writer, "UPDATE rate_limit_tenant_plan SET plan = 'pro'")).isOne();
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_tenant_plan WHERE project_id = 'acme'"))
				.isOne();
			assertThat(notificationsAfter(listener, writer, "TRUNCATE rate_limit_tenant_plan")).isOne();
			assertThat(notificationsAfter(listener, writer, "DELETE FROM rate_limit_api_key")).isZero();
		}
	}

	@Test
	void migrateWhenPostgresAtVersionFiveWithRowsThenPlansAreAddedAndEveryRowKeepsItsMeaning() {
		DataSource dataSource = dataSource(fromFive);
		migrateTo("5", dataSource, RateLimitSchemaMigration.COMMON_LOCATION,
				RateLimitSchemaMigration.LOCATION + "/postgresql");
		JdbcTemplate sql = new JdbcTemplate(dataSource);
		sql.update("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('default', NULL, 3)");
		sql.update("INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('default', 'acme', 9)");
		sql.update("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('h', 'p', 'acme')");

		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();

		assertThat(history(dataSource)).endsWith("5 V5__layered_limits.sql true", "6 V6__plans.sql true");
		assertThat(sql.queryForList("SELECT COALESCE(project_id, '-') || ' ' || COALESCE(plan, '-') || ' ' || rps_limit "
				+ "FROM rate_limit_policy ORDER BY id", String.class))
			.containsExactly("- - 3.000000", "acme - 9.000000");
		assertThat(sql.queryForList("SELECT principal || ' ' || COALESCE(plan, '-') FROM rate_limit_api_key",
				String.class))
			.containsExactly("p -");
		assertThat(sql.queryForObject("SELECT COUNT(*) FROM rate_limit_tenant_plan", Integer.class)).isZero();
		assertThat(sql.queryForList("SELECT tgname FROM pg_trigger WHERE tgname = 'rate_limit_tenant_plan_changed'",
				String.class)).hasSize(1);
		// A blank plan names nothing; the table refuses it rather than let it pass unnoticed.
		assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> sql.update("INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES ('acme', ' ')"));
	}

	@Test
	void migrateWhenPostgresAtVersionTwoThenUpgradesToFiveWithConsistentHistoryAndRowsKeepTheirMeaning() {
		DataSource dataSource = dataSource(upgraded);
		// A database the previous release migrated: versions 1 and 2 under the same script names.
		migrateTo("2", dataSource, RateLimitSchemaMigration.COMMON_LOCATION);
		new JdbcTemplate(dataSource).update("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('default', 3)");

		new RateLimitSchemaMigration(dataSource).afterPropertiesSet();

		// The row of the previous release is still the endpoint's own limit, per second, counting weights.
		assertThat(new JdbcTemplate(dataSource).queryForList("SELECT rps_limit || ' ' || COALESCE(limit_name, '-') || ' '"
				+ " || applies_to || ' ' || counts || ' ' || COALESCE(limit_count, 0) FROM rate_limit_policy",
				String.class))
			.containsExactly("3.000000 - ENDPOINT POINTS 0");

		assertThat(history(dataSource)).containsExactly("1 V1__create_rate_limit_tables.sql true",
				"2 V2__add_policy_scope.sql true", "3 V3__notify_policy_changes.sql true",
				"4 V4__notify_api_key_changes.sql true", "5 V5__layered_limits.sql true", "6 V6__plans.sql true");
		assertThat(new JdbcTemplate(dataSource).queryForList("SELECT tgname FROM pg_trigger WHERE tgname IN ('"
				+ PolicyChangeListener.CHANNEL + "', '" + PolicyChangeListener.API_KEY_CHANNEL + "')", String.class))
			.containsExactlyInAnyOrder(PolicyChangeListener.CHANNEL, PolicyChangeListener.API_KEY_CHANNEL);
	}

	private static int notificationsAfter(Connection listener, Connection writer, String sql) throws SQLException {
		try (Statement statement = writer.createStatement()) {
			statement.execute(sql);
		}
		PGConnection notifications = listener.unwrap(PGConnection.class);
		int count = 0;
		// The first wait is for delivery; the second proves nothing else follows.
		for (int wait : new int[] { 2000, 200 }) {
			PGNotification[] received = notifications.getNotifications(wait);
			count += (received != null) ? received.length : 0;
		}
		return count;
	}

	/** Migrates to a version, as an earlier release did, from the given locations. */
	private static void migrateTo(String version, DataSource dataSource, String... locations) {
		Flyway.configure()
			.dataSource(dataSource)
			.locations(locations)
			.table(RateLimitSchemaMigration.HISTORY_TABLE)
			.target(version)
			.load()
			.migrate();
	}

	private static List<String> history(DataSource dataSource) {
		// Quoted: on H2, Flyway creates the history table with quoted lower-case names.
		String sql = "SELECT \"version\" || ' ' || \"script\" || ' ' || CASE WHEN \"success\" THEN 'true' "
				+ "ELSE 'false' END FROM \"" + RateLimitSchemaMigration.HISTORY_TABLE + "\" WHERE \"version\" IS NOT NULL "
				+ "ORDER BY \"installed_rank\"";
		return new JdbcTemplate(dataSource).queryForList(sql, String.class);
	}

	private static DataSource dataSource(PostgresDatabase database) {
		return new AbstractDataSource() {

			@Override
			public Connection getConnection() throws SQLException {
				return database.connect();
			}

			@Override
			public Connection getConnection(String username, String password) throws SQLException {
				return database.connect();
			}

		};
	}

}
