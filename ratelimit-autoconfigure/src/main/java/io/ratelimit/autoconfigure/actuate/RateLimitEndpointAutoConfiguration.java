package io.ratelimit.autoconfigure.actuate;

import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.shed.LoadShedder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@link RateLimitEndpoint} of a rate-limited application with Actuator, once the
 * endpoint is exposed ({@code management.endpoints.web.exposure.include=ratelimit}).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, RateLimiter.class })
@ConditionalOnAvailableEndpoint(RateLimitEndpoint.class)
@ConditionalOnBean({ RateLimiter.class, EndpointResolver.class })
public class RateLimitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitEndpoint rateLimitEndpoint(RateLimiter limiter, ObjectProvider<GlobalBucketStore> globalBuckets,
			ObjectProvider<LoadShedder> shedder) {
		GlobalBucketStore global = globalBuckets.getIfAvailable();
		// The limiter's own resolver: it may charge some templates as others (logins).
		RateLimitEndpoint endpoint = new RateLimitEndpoint(limiter, limiter.endpoints(),
				(global != null) ? global.leases() : null);
		endpoint.setLoadShedder(shedder.getIfAvailable());
		return endpoint;
	}

}
