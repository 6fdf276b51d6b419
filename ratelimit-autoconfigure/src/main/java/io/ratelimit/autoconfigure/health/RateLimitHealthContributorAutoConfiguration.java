package io.ratelimit.autoconfigure.health;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.ReloadablePolicies;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The health contributor {@code ratelimit} ({@link RateLimitHealthIndicator}) of a
 * rate-limited application with Actuator. Switched off with
 * {@code management.health.ratelimit.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ReloadablePolicies.class })
@ConditionalOnBean(ReloadablePolicies.class)
@ConditionalOnEnabledHealthIndicator("ratelimit")
public class RateLimitHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "ratelimitHealthIndicator")
	RateLimitHealthIndicator ratelimitHealthIndicator(ReloadablePolicies policies,
			ObjectProvider<ReloadableApiKeys> apiKeys, ObjectProvider<PermitStore> permits) {
		return new RateLimitHealthIndicator(policies, apiKeys.getIfAvailable(), TimeSource.system(),
				permits.getIfAvailable());
	}

}
