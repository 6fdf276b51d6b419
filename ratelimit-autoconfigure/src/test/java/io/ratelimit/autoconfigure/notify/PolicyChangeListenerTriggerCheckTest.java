package io.ratelimit.autoconfigure.notify;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.migration.RateLimitSchemaMigration;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener's startup check of the triggers that notify it ({@code RATELIMIT-W009}), on
 * PostgreSQL: the policy table's, and the tenant-plan table's, which notifies the policies'
 * channel, each warned about by name when it is missing.
 */
@ExtendWith(OutputCaptureExtension.class)
class PolicyChangeListenerTriggerCheckTest {

	@RegisterExtension
	static final PostgresDatabase complete = TestPostgres.newDatabase();

	@RegisterExtension
	static final PostgresDatabase withoutPlanTrigger = TestPostgres.newDatabase();

	@Test
	void startWhenTenantPlanTableHasNoTriggerThenWarnsAboutThatTableOnly(CapturedOutput output) throws Exception {
		migrate(withoutPlanTrigger);
		execute(withoutPlanTrigger, "DROP TRIGGER rate_limit_tenant_plan_changed ON rate_limit_tenant_plan");

		PolicyChangeListener listener = listen(withoutPlanTrigger);
		try {
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(output).contains("[RATELIMIT-W009] The rate_limit_tenant_plan table "
						+ "has no 'rate_limit_tenant_plan_changed' trigger, so changes to the tenants' plans"));
		}
		finally {
			listener.stop();
		}
		assertThat(output).contains("db/migration/postgresql/V6__plans.sql")
			.doesNotContain("The rate_limit_policy table has no");
	}

	@Test
	void startWhenEveryTriggerIsThereThenNoWarning(CapturedOutput output) throws Exception {
		migrate(complete);
		ReloadablePolicies policies = policies();
		PolicyChangeListener listener = new PolicyChangeListener(policies, null, complete::connect);
		listener.start();
		try {
			await().atMost(Duration.ofSeconds(20)).until(listener::isListening);
			// A change to a tenant's plan reloads the policies: the check has run by then.
			long version = policies.current().version();
			execute(complete, "INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES ('acme', 'pro')");
			await().atMost(Duration.ofSeconds(20)).until(() -> policies.current().version() > version);
		}
		finally {
			listener.stop();
		}
		assertThat(output).doesNotContain("RATELIMIT-W009");
	}

	private static PolicyChangeListener listen(PostgresDatabase database) {
		PolicyChangeListener listener = new PolicyChangeListener(policies(), null, database::connect);
		listener.start();
		return listener;
	}

	private static ReloadablePolicies policies() {
		ReloadablePolicies policies = new ReloadablePolicies(List::of,
				PolicySettings.of(BigDecimal.TEN, BigDecimal.ONE, BigDecimal.valueOf(2)), TimeSource.system());
		policies.reload();
		return policies;
	}

	private static void migrate(PostgresDatabase database) throws SQLException {
		try (Connection connection = database.connect()) {
			DataSource dataSource = new SingleConnectionDataSource(connection, true);
			new RateLimitSchemaMigration(dataSource).afterPropertiesSet();
		}
	}

	private static void execute(PostgresDatabase database, String sql) throws SQLException {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
