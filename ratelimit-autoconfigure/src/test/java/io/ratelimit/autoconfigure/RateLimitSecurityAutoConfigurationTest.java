package io.ratelimit.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import javax.crypto.spec.SecretKeySpec;

import jakarta.servlet.Filter;

import io.ratelimit.autoconfigure.security.FirewalledEndpointResolver;
import io.ratelimit.autoconfigure.security.JwtDecoderTokenVerifier;
import io.ratelimit.autoconfigure.security.SecurityContextPrincipalResolver;
import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.identity.PrincipalResolver;
import io.ratelimit.core.identity.TokenVerifier;
import io.ratelimit.core.identity.VerifiedToken;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.web.firewall.HttpFirewall;

import com.nimbusds.jose.jwk.source.ImmutableSecret;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Security integration's conditions: which identity source and endpoint
 * resolver the limiter uses, before or after the security chain, with or without Spring
 * Security and a JWT decoder.
 */
class RateLimitSecurityAutoConfigurationTest {

	private static final byte[] SECRET = "an-hs256-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, RateLimitSecurityAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID());

	@Test
	void runWhenBeforeSecurityChainThenFirewallAppliedAndNoPrincipalResolver() {
		this.runner.withUserConfiguration(SecurityFilterChainConfiguration.class).run((context) -> {
			assertThat(context.getBean(EndpointResolver.class)).isInstanceOf(FirewalledEndpointResolver.class);
			assertThat(context).doesNotHaveBean(PrincipalResolver.class);
			assertThat(context).doesNotHaveBean(TokenVerifier.class);
		});
	}

	@Test
	void runWhenSecurityClassesPresentButNoFilterChainThenNoFirewall() {
		// Without a security chain nothing enforces the firewall, so it must not decide the endpoint.
		this.runner.run((context) -> assertThat(context.getBean(EndpointResolver.class))
			.isInstanceOf(MvcEndpointResolver.class));
	}

	@Test
	void runWhenApplicationHasJwtDecoderThenTokensVerifiedWithIt() {
		this.runner.withUserConfiguration(SecurityFilterChainConfiguration.class, JwtDecoderConfiguration.class)
			.withPropertyValues("ratelimit.jwt.tenant-claim=org", "ratelimit.jwt.plan-claim=tier")
			.run((context) -> {
				TokenVerifier verifier = context.getBean(TokenVerifier.class);
				assertThat(verifier).isInstanceOf(JwtDecoderTokenVerifier.class);
				VerifiedToken token = verifier.verify(sign("alice", "acme", SECRET));
				assertThat(token).isNotNull();
				assertThat(token.subject()).isEqualTo("alice");
				assertThat(token.tenant()).isEqualTo("acme");
				assertThat(token.plan()).isEqualTo("pro");
				assertThat(verifier.verify(sign("alice", "acme", "a-different-secret-of-at-least-32-bytes".getBytes(
						StandardCharsets.UTF_8)))).isNull();
				assertThat(verifier.verify("not-a-jwt")).isNull();
			});
	}

	@Test
	void runWhenAfterSecurityThenPrincipalFromSecurityContextAndNoFirewallOrToken() {
		this.runner.withUserConfiguration(JwtDecoderConfiguration.class)
			.withPropertyValues("ratelimit.filter.position=after-security")
			.run((context) -> {
				assertThat(context.getBean(PrincipalResolver.class))
					.isInstanceOf(SecurityContextPrincipalResolver.class);
				assertThat(context.getBean(EndpointResolver.class)).isInstanceOf(MvcEndpointResolver.class);
				assertThat(context).doesNotHaveBean(TokenVerifier.class);
			});
	}

	@Test
	void runWhenSpringSecurityAbsentThenPlainMvcResolver() {
		this.runner.withClassLoader(new FilteredClassLoader(HttpFirewall.class, JwtDecoder.class))
			.run((context) -> {
				assertThat(context.getBean(EndpointResolver.class)).isInstanceOf(MvcEndpointResolver.class);
				assertThat(context).doesNotHaveBean(TokenVerifier.class);
				assertThat(context).doesNotHaveBean(PrincipalResolver.class);
			});
	}

	private static String sign(String subject, String tenant, byte[] secret) {
		NimbusJwtEncoder encoder = new NimbusJwtEncoder(new ImmutableSecret<>(secret));
		JwtClaimsSet claims = JwtClaimsSet.builder()
			.subject(subject)
			.claim("org", tenant)
			.claim("tier", "pro")
			.claim("plan", "unread")
			.expiresAt(Instant.now().plusSeconds(300))
			.build();
		return encoder.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
			.getTokenValue();
	}

	@Configuration(proxyBeanMethods = false)
	static class SecurityFilterChainConfiguration {

		/** Stands in for the chain {@code @EnableWebSecurity} registers under this name. */
		@Bean(RateLimitSecurityAutoConfiguration.SECURITY_FILTER_CHAIN)
		Filter springSecurityFilterChain() {
			return (request, response, chain) -> chain.doFilter(request, response);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JwtDecoderConfiguration {

		@Bean
		JwtDecoder jwtDecoder() {
			return NimbusJwtDecoder.withSecretKey(new SecretKeySpec(SECRET, "HmacSHA256")).build();
		}

	}

}
