package io.ratelimit.autoconfigure.notify;

import javax.sql.DataSource;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.postgresql.PGConnection;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;

/**
 * Reloads policies and API keys the moment they change, when the PostgreSQL driver is present and the
 * policies come from a database. Whether the database is PostgreSQL is settled when the
 * listener connects, not here: the URL may come from a service connection, and the
 * database may be down at startup. On any other database the listener ends at once and
 * the periodic refresh carries on alone.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ PGConnection.class, ReloadablePolicies.class, JdbcConnectionDetails.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBean(ReloadablePolicies.class)
@ConditionalOnProperty(prefix = "ratelimit.policy.notify", name = "enabled", matchIfMissing = true)
public class RateLimitPolicyNotifyAutoConfiguration {

	/**
	 * A connection of its own, built from what Spring Boot built the data source from, so
	 * the pool keeps every slot; with a data source the application built itself, one
	 * connection borrowed from it for good.
	 */
	@Bean
	@ConditionalOnMissingBean
	PolicyListenerConnectionFactory rateLimitPolicyListenerConnectionFactory(
			ObjectProvider<JdbcConnectionDetails> connectionDetails, DataSource dataSource) {
		JdbcConnectionDetails details = connectionDetails.getIfAvailable();
		return (details != null) ? new DriverConnectionFactory(details) : new BorrowedConnectionFactory(dataSource);
	}

	@Bean
	@ConditionalOnMissingBean
	PolicyChangeListener rateLimitPolicyChangeListener(ReloadablePolicies policies,
			ObjectProvider<ReloadableApiKeys> apiKeys, PolicyListenerConnectionFactory connections) {
		return new PolicyChangeListener(policies, apiKeys.getIfAvailable(), connections);
	}

}
