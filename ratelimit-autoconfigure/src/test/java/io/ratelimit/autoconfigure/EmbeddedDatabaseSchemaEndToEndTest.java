package io.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application on an embedded database without schema migrations of its own, where
 * Spring Boot has Hibernate create (and at shutdown drop) the tables of every entity: the
 * application's tables are Hibernate's, the limiter's stay as its own migrations made them. Were Hibernate to make them from
 * the entities, {@code rps_limit} would keep two decimals and "5 per minute" (0.083333)
 * would become 0.08, and the migrations' defaults and checks would be gone.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.MOCK,
		properties = { "spring.datasource.url=jdbc:h2:mem:embedded-schema;DB_CLOSE_DELAY=-1", "spring.flyway.enabled=false",
				"spring.jpa.open-in-view=false" })
@DirtiesContext
class EmbeddedDatabaseSchemaEndToEndTest {

	@Autowired
	private DataSource dataSource;

	@Autowired
	private ReloadablePolicies policies;

	@Test
	void startupWhenEmbeddedDatabaseAndHibernateCreatesTablesThenTheLimitersTablesAreTheMigrations()
			throws Exception {
		try (Connection connection = this.dataSource.getConnection(); Statement sql = connection.createStatement()) {
			sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/products', 0.083333)");
			try (ResultSet columns = connection.getMetaData()
				.getColumns(null, null, "RATE_LIMIT_POLICY", "RPS_LIMIT")) {
				assertThat(columns.next()).isTrue();
				assertThat(columns.getInt("DECIMAL_DIGITS")).as("the migration's scale").isEqualTo(6);
			}
			try (ResultSet widgets = connection.getMetaData().getTables(null, null, "WIDGET", null)) {
				assertThat(widgets.next()).as("the application's own entity still gets its table").isTrue();
			}
			try (ResultSet mode = sql.executeQuery("SELECT mode FROM rate_limit_policy")) {
				assertThat(mode.next()).isTrue();
				assertThat(mode.getString(1)).as("the migration's default").isEqualTo("ENFORCE");
			}
		}

		assertThat(this.policies.reload().succeeded()).isTrue();
		assertThat(this.policies.current().policies()).singleElement()
			.satisfies((policy) -> assertThat(policy.rps()).isEqualByComparingTo(new BigDecimal("0.083333")));
	}

}
