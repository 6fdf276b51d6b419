package io.ratelimit.autoconfigure;

import io.ratelimit.autoconfigure.security.FirewalledEndpointResolver;
import io.ratelimit.autoconfigure.security.JwtDecoderTokenVerifier;
import io.ratelimit.autoconfigure.security.SecurityContextPrincipalResolver;
import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.identity.PrincipalResolver;
import io.ratelimit.core.identity.TokenVerifier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.firewall.HttpFirewall;

/**
 * Spring Security integration. Before the security chain (the default), the limiter
 * applies the application's HTTP firewall and verifies bearer tokens with its
 * {@link JwtDecoder}; after it, the limiter takes the authenticated principal from the
 * security context.
 */
// The resource server's auto-configuration is in its servlet package on Boot 4.0 and one
// package up on Boot 4.1: both names, so the JwtDecoder bean is defined first on either line.
@AutoConfiguration(before = RateLimitAutoConfiguration.class, afterName = {
		"org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerAutoConfiguration",
		"org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.OAuth2ResourceServerAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration" })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ RateLimiter.class, HttpFirewall.class })
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public class RateLimitSecurityAutoConfiguration {

	/**
	 * The name of Spring Security's filter chain bean: the firewall matters only when that
	 * chain runs. Applied without it, the firewall would charge requests to UNKNOWN that a
	 * handler goes on to serve.
	 */
	static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "ratelimit.filter", name = "position", havingValue = "before-security",
			matchIfMissing = true)
	@ConditionalOnBean(name = SECURITY_FILTER_CHAIN)
	static class BeforeSecurity {

		@Bean
		@ConditionalOnMissingBean
		EndpointResolver rateLimitEndpointResolver(ApplicationContext context, ObjectProvider<HttpFirewall> firewall,
				RateLimitProperties properties) {
			// Only rejecting unknown endpoints needs to know which of them nothing serves.
			boolean findsServedUnknown = properties.getUnknownEndpoint() == RateLimitProperties.UnknownEndpoint.REJECT;
			// Spring Security uses the application's firewall bean, or a strict one of its own.
			HttpFirewall own = firewall.getIfAvailable();
			return (own != null)
					? FirewalledEndpointResolver.of(own, new MvcEndpointResolver(context, findsServedUnknown))
					: FirewalledEndpointResolver.withDefaultFirewall(context, findsServedUnknown);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "ratelimit.filter", name = "position", havingValue = "before-security",
			matchIfMissing = true)
	@ConditionalOnClass(JwtDecoder.class)
	static class BeforeSecurityWithJwt {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(JwtDecoder.class)
		TokenVerifier rateLimitTokenVerifier(JwtDecoder decoder, RateLimitProperties properties) {
			return new JwtDecoderTokenVerifier(decoder, properties.getJwt().getTenantClaim(),
					properties.getJwt().getPlanClaim());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "ratelimit.filter", name = "position", havingValue = "after-security")
	static class AfterSecurity {

		@Bean
		@ConditionalOnMissingBean
		PrincipalResolver rateLimitPrincipalResolver(RateLimitProperties properties) {
			return new SecurityContextPrincipalResolver(properties.getJwt().getTenantClaim(),
					properties.getJwt().getPlanClaim());
		}

	}

}
