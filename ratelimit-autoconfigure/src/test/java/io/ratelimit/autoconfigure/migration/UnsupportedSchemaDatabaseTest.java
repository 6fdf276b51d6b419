package io.ratelimit.autoconfigure.migration;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.RateLimitDataAutoConfiguration;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * A database the limiter's migrations are not written for, or one Flyway lacks its module
 * for, stops startup with an analysis that names the database, the supported ones and the
 * way out, instead of Flyway's "Unsupported Database". Other databases are played by a
 * data source whose metadata names them, so no MySQL, MariaDB or SQL Server server is
 * needed.
 */
class UnsupportedSchemaDatabaseTest {

	@RegisterExtension
	static final PostgresDatabase postgres = TestPostgres.newDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitDataAutoConfiguration.class));

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			MariaDB              | 11.4.2-MariaDB-ubu2404 | jdbc:mariadb://127.0.0.1:3306/test
			MySQL                | 8.4.0                  | jdbc:mysql://127.0.0.1:3306/test
			Microsoft SQL Server | 16.00.4135             | jdbc:sqlserver://127.0.0.1:1433;databaseName=test
			Oracle               | Oracle Database 23ai   | jdbc:oracle:thin:@127.0.0.1:1521/FREEPDB1
			""")
	void afterPropertiesSetWhenDatabaseUnsupportedThenFailsNamingItAndTheSupportedOnes(String product,
			String version, String url) throws SQLException {
		DataSource dataSource = reporting(product, version, url);

		assertThatExceptionOfType(UnsupportedSchemaDatabaseException.class)
			.isThrownBy(() -> new RateLimitSchemaMigration(dataSource).afterPropertiesSet())
			.satisfies((ex) -> {
				assertThat(ex.getDatabase()).isEqualTo(product + " " + version);
				assertThat(ex.getSupportedDatabases()).containsExactly("PostgreSQL", "H2");
				assertThat(ex.getMissingModule()).isNull();
				assertThat(ex).hasMessage("The rate limiter's schema migration does not support " + product + " "
						+ version + "; it supports PostgreSQL and H2");
			});
		// Refused before Flyway ran a statement.
		verify(dataSource.getConnection(), never()).createStatement();
	}

	@Test
	void runWhenDatabaseUnsupportedThenFailureAnalysisNamesItTheSupportedOnesAndTheWayOut() {
		this.runner.withBean(DataSource.class, () -> reporting("MariaDB", "11.4.2-MariaDB", "jdbc:mariadb://db/test"))
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.isEqualTo("The rate limiter cannot create its tables (rate_limit_policy, rate_limit_api_key) "
							+ "in MariaDB 11.4.2-MariaDB: its schema migration supports PostgreSQL and H2 only.");
				assertThat(analysis.getAction()).startsWith("Run the application on PostgreSQL or H2, or keep")
					.contains("'ratelimit.schema.migrate=false' and create the tables yourself",
							"the ratelimit-autoconfigure jar under io/ratelimit/db/migration/common",
							"a bean of type io.ratelimit.core.policy.PolicySource",
							"io.ratelimit.core.identity.ApiKeySource");
				assertThat(analysis.getCause()).isInstanceOf(UnsupportedSchemaDatabaseException.class);
			});
	}

	@Test
	void runWhenDatabaseUnsupportedAndMigrationOffThenStarts() {
		this.runner.withBean(DataSource.class, () -> reporting("MariaDB", "11.4.2-MariaDB", "jdbc:mariadb://db/test"))
			.withPropertyValues("ratelimit.schema.migrate=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitSchemaMigration.class);
			});
	}

	@Test
	void runWhenFlywayModuleForPostgresqlMissingThenFailureAnalysisNamesTheModule() {
		// Flyway finds its database support through the context class loader, which the
		// runner sets to this one: as if the build excluded flyway-database-postgresql.
		this.runner.withClassLoader(new FilteredClassLoader("org.flywaydb.database.postgresql"))
			.withUserConfiguration(PostgresDataSource.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).matches("The rate limiter cannot create its tables "
						+ "\\(rate_limit_policy, rate_limit_api_key\\) in PostgreSQL \\d[^:]*: Flyway migrates it only "
						+ "with its module org.flywaydb:flyway-database-postgresql, which is not on the class path.");
				assertThat(analysis.getAction()).startsWith(
						"Add the dependency org.flywaydb:flyway-database-postgresql at the version Spring Boot manages")
					.contains("'ratelimit.schema.migrate=false'", "jar under io/ratelimit/db/migration.");
			});
	}

	@Test
	void runWhenDatabaseIsPostgresqlThenMigrates() {
		this.runner.withUserConfiguration(PostgresDataSource.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimitSchemaMigration.class));
	}

	@Test
	void loadWhenSpringFactoriesThenFailureAnalyzersIncludeTheSchemaDatabaseAnalyzer() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
			.load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
			}))).hasAtLeastOneElementOfType(UnsupportedSchemaDatabaseFailureAnalyzer.class);
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new UnsupportedSchemaDatabaseFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
		return analysis;
	}

	/**
	 * A data source whose connections describe themselves as the given database and hold no
	 * tables.
	 */
	private static DataSource reporting(String product, String version, String url) {
		try {
			DatabaseMetaData metaData = mock(DatabaseMetaData.class);
			given(metaData.getDatabaseProductName()).willReturn(product);
			given(metaData.getDatabaseProductVersion()).willReturn(version);
			given(metaData.getURL()).willReturn(url);
			ResultSet noTables = mock(ResultSet.class);
			given(metaData.getTables(any(), any(), any(), any())).willReturn(noTables);
			Connection connection = mock(Connection.class);
			given(connection.getMetaData()).willReturn(metaData);
			DataSource dataSource = mock(DataSource.class);
			given(dataSource.getConnection()).willReturn(connection);
			return dataSource;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class PostgresDataSource {

		@Bean
		DataSource dataSource() {
			return new DriverManagerDataSource(postgres.url(), postgres.user(), postgres.password());
		}

	}

}
