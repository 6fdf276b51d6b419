package io.ratelimit.autoconfigure.migration;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup failure of the limiter's schema migration on a database it cannot
 * migrate: which database it is, which ones are supported, and how to run the limiter on
 * it anyway.
 */
class UnsupportedSchemaDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSchemaDatabaseException> {

	/** Where a user finds the migrations: a path in the jar, not a Spring resource location. */
	private static final String JAR_LOCATION = RateLimitSchemaMigration.LOCATION.substring("classpath:".length());

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSchemaDatabaseException cause) {
		String module = cause.getMissingModule();
		return (module != null) ? missingModule(cause, module) : unsupportedDatabase(cause);
	}

	private static FailureAnalysis unsupportedDatabase(UnsupportedSchemaDatabaseException cause) {
		String supported = String.join(" and ", cause.getSupportedDatabases());
		String description = "The rate limiter cannot create its tables (rate_limit_policy, rate_limit_api_key) in "
				+ cause.getDatabase() + ": its schema migration supports " + supported + " only.";
		String action = "Run the application on " + String.join(" or ", cause.getSupportedDatabases())
				+ ", or keep this database and do one of these:\n"
				+ "\t- set 'ratelimit.schema.migrate=false' and create the tables yourself, after the migrations in "
				+ "the ratelimit-autoconfigure jar under " + JAR_LOCATION + "/common, in version order, with the "
				+ "column types adapted to this database;\n"
				+ "\t- set 'ratelimit.schema.migrate=false' and define a bean of type "
				+ "io.ratelimit.core.policy.PolicySource that reads the policies from where you keep them "
				+ "(and one of type io.ratelimit.core.identity.ApiKeySource if you use API keys).";
		return new FailureAnalysis(description, action, cause);
	}

	private static FailureAnalysis missingModule(UnsupportedSchemaDatabaseException cause, String module) {
		String description = "The rate limiter cannot create its tables (rate_limit_policy, rate_limit_api_key) in "
				+ cause.getDatabase() + ": Flyway migrates it only with its module " + module
				+ ", which is not on the class path.";
		String action = "Add the dependency " + module + " at the version Spring Boot manages (ratelimit-starter "
				+ "brings it: check that your build does not exclude it), or set 'ratelimit.schema.migrate=false' and "
				+ "create the tables yourself, after the migrations in the ratelimit-autoconfigure jar under "
				+ JAR_LOCATION + ".";
		return new FailureAnalysis(description, action, cause);
	}

}
