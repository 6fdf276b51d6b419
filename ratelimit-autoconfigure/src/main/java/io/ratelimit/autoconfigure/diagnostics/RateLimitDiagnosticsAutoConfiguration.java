package io.ratelimit.autoconfigure.diagnostics;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitProperties;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.persistence.EntityManagerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.security.web.FilterChainProxy;

/**
 * Checks that warn about misconfiguration of a rate-limited application, each once and
 * with a stable {@link Diagnostic} code: forwarding headers without trusted proxies,
 * trusted ranges that are too wide, a forward-headers strategy that rewrites the client
 * address, policy tables that miss rows, undersize weighted endpoints or name endpoints
 * the application does not have, and an open-in-view interceptor that serves no entity of
 * the application's. Silence them with the log level of this package.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RateLimiter.class)
@ConditionalOnBean(RateLimiter.class)
@EnableConfigurationProperties(RateLimitProperties.class)
public class RateLimitDiagnosticsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	UntrustedForwardingHeadersListener rateLimitUntrustedForwardingHeadersListener(RateLimitProperties properties) {
		return new UntrustedForwardingHeadersListener(!properties.getClientIp().getTrustedProxies().isEmpty());
	}

	@Bean
	@ConditionalOnMissingBean
	ClientIpSetupCheck rateLimitClientIpSetupCheck(RateLimitProperties properties, Environment environment) {
		RateLimitProperties.ClientIp clientIp = properties.getClientIp();
		return new ClientIpSetupCheck(clientIp.getTrustedProxies(), clientIp.getHeader(), environment);
	}

	@Bean
	@ConditionalOnMissingBean
	PolicyTableCheck rateLimitPolicyTableCheck(RateLimiter limiter, RateLimitProperties properties) {
		return new PolicyTableCheck(limiter.policies(), limiter.weights(),
				properties.getRedis().getBatch().getColdKeyShare());
	}

	@Bean
	@ConditionalOnMissingBean
	LoginEndpointsCheck rateLimitLoginEndpointsCheck(RateLimiter limiter, ListableBeanFactory beans,
			RateLimitProperties properties) {
		return new LoginEndpointsCheck(limiter, beans,
				properties.getFilter().getPosition() == RateLimitProperties.FilterPosition.AFTER_SECURITY);
	}

	@Bean
	@ConditionalOnMissingBean
	EndpointGroupsCheck rateLimitEndpointGroupsCheck(ReloadablePolicies policies) {
		return new EndpointGroupsCheck(policies);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(FilterChainProxy.class)
	static class SecurityChecks {

		@Bean
		@ConditionalOnMissingBean
		SecuredUrlHandlerFilterCheck rateLimitSecuredUrlHandlerFilterCheck(ListableBeanFactory beans) {
			return new SecuredUrlHandlerFilterCheck(beans);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ EntityManagerFactory.class, OpenEntityManagerInViewInterceptor.class })
	static class JpaChecks {

		@Bean
		@ConditionalOnMissingBean
		OpenInViewCheck rateLimitOpenInViewCheck(Environment environment,
				ObjectProvider<OpenEntityManagerInViewInterceptor> interceptors,
				ObjectProvider<EntityManagerFactory> entityManagerFactories) {
			return new OpenInViewCheck(environment, interceptors, entityManagerFactories);
		}

	}

}
