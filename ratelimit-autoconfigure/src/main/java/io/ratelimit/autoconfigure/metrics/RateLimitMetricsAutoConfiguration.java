package io.ratelimit.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.identity.ReloadableApiKeys;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of the rate limiter, when the application has a {@link MeterRegistry}:
 * decisions and failures from the filter, and the state of the bucket store, the permit
 * stores of in-flight limits, policies and API keys.
 * Tag values come only from bounded sets (endpoint templates, outcomes, results), never
 * from principals, addresses or keys.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, RateLimiter.class })
@ConditionalOnBean({ MeterRegistry.class, RateLimiter.class })
public class RateLimitMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitDecisionMetrics rateLimitDecisionMetrics(MeterRegistry registry) {
		return new RateLimitDecisionMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitMeterBinder rateLimitMeterBinder(RateLimiter limiter) {
		return new RateLimitMeterBinder(limiter.buckets(), limiter.policies(), TimeSource.system());
	}

	@Bean
	@ConditionalOnMissingBean
	InFlightMeterBinder rateLimitInFlightMeterBinder(RateLimiter limiter) {
		return new InFlightMeterBinder(limiter);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ReloadableApiKeys.class)
	ApiKeyMeterBinder rateLimitApiKeyMeterBinder(ReloadableApiKeys keys) {
		return new ApiKeyMeterBinder(keys, TimeSource.system());
	}

}
