package io.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.ratelimit.autoconfigure.RateLimitProperties.FilterPosition;
import io.ratelimit.autoconfigure.web.LoginEndpointResolver;
import io.ratelimit.autoconfigure.web.LoginOutcomes;
import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.autoconfigure.web.MvcEndpointTemplates;
import io.ratelimit.autoconfigure.web.AsyncTasks;
import io.ratelimit.autoconfigure.web.RateLimitFilter;
import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.bucket.BucketKeys;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.ApiKeySource;
import io.ratelimit.core.identity.ClientIpResolver;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.IpRange;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.PrincipalResolver;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.identity.TokenVerifier;
import io.ratelimit.core.policy.EndpointGroups;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.PolicySource;
import io.ratelimit.core.policy.ReloadablePolicies;
import io.ratelimit.core.shed.LoadShedder;
import jakarta.servlet.DispatcherType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Rate-limits every request of a servlet web application: the pipeline of
 * {@code ratelimit-core} behind a servlet filter, with endpoints taken from Spring MVC.
 * Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ RateLimiter.class, DispatcherServlet.class })
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public class RateLimitAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitAutoConfiguration.class);

	/** Spring Security's filter chain order ({@code SecurityProperties.DEFAULT_FILTER_ORDER}). */
	static final int SECURITY_FILTER_ORDER = -100;

	@Bean
	@ConditionalOnMissingBean
	MvcEndpointTemplates rateLimitEndpointTemplates(ApplicationContext context) {
		return new MvcEndpointTemplates(context);
	}

	@Bean
	@ConditionalOnMissingBean
	ReloadablePolicies rateLimitPolicies(RateLimitProperties properties, ObjectProvider<PolicySource> source,
			ObjectProvider<MvcEndpointTemplates> templates) {
		RateLimitProperties.Policy policy = properties.getPolicy();
		InvalidRateLimitPropertyException.check("ratelimit.burst-factor",
				() -> BucketLimits.of(BigDecimal.ONE, properties.getBurstFactor(), 1));
		InvalidRateLimitPropertyException.check("ratelimit.policy.unknown-rps",
				() -> PolicySettings.of(BigDecimal.ONE, policy.getUnknownRps(), BigDecimal.ONE));
		EndpointGroups groups = InvalidRateLimitPropertyException.check("ratelimit.groups",
				() -> groups(properties.getGroups()));
		PolicySettings settings = InvalidRateLimitPropertyException
			.check("ratelimit.policy.default-rps",
					() -> PolicySettings.of(policy.getDefaultRps(), policy.getUnknownRps(), properties.getBurstFactor()))
			.withGroups(groups);
		MvcEndpointTemplates known = templates.getIfAvailable();
		if (known != null) {
			// Rows for templates the application does not serve are rejected, not silently dead;
			// a login may be served by a filter rather than a handler.
			Set<EndpointTemplate> logins = InvalidRateLimitPropertyException.check("ratelimit.login.endpoints",
					() -> LoginEndpoints.templates(properties.getLogin()));
			settings = settings.withKnownEndpoints((endpoint) -> known.contains(endpoint) || logins.contains(endpoint));
		}
		PolicySettings validation = settings;
		return InvalidRateLimitPropertyException.check("ratelimit.policy.maximum-policies",
				() -> new ReloadablePolicies(source.getIfAvailable(() -> List::of), validation,
						policy.getMaximumPolicies(), TimeSource.system()));
	}

	@Bean
	@ConditionalOnMissingBean
	PolicyRefresher rateLimitPolicyRefresher(ReloadablePolicies policies, ObjectProvider<ReloadableApiKeys> apiKeys,
			RateLimitProperties properties) {
		return new PolicyRefresher(policies, apiKeys.getIfAvailable(), properties.getPolicy().getRefreshInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "ratelimit.api-key", name = "hash-secret")
	ReloadableApiKeys rateLimitApiKeys(RateLimitProperties properties, ObjectProvider<ApiKeySource> sources) {
		ApiKeySource source = sources.getIfAvailable();
		if (source == null) {
			logger.warn("ratelimit.api-key.hash-secret is set, but there is no API key table to read (no JPA "
					+ "data source, nor an ApiKeySource bean): no API key will be recognized");
			source = (limit) -> List.of();
		}
		ApiKeySource keys = source;
		return InvalidRateLimitPropertyException.check("ratelimit.api-key.maximum-keys",
				() -> new ReloadableApiKeys(keys, properties.getApiKey().getMaximumKeys(), TimeSource.system()));
	}

	@Bean
	@ConditionalOnMissingBean
	EndpointResolver rateLimitEndpointResolver(ApplicationContext context, RateLimitProperties properties) {
		return new MvcEndpointResolver(context,
				properties.getUnknownEndpoint() == RateLimitProperties.UnknownEndpoint.REJECT);
	}

	@Bean
	@ConditionalOnMissingBean
	IdentityResolver rateLimitIdentityResolver(RateLimitProperties properties, ObjectProvider<ReloadableApiKeys> apiKeys,
			ObjectProvider<TokenVerifier> tokenVerifier, ObjectProvider<PrincipalResolver> principals) {
		RateLimitProperties.ClientIp clientIp = properties.getClientIp();
		List<IpRange> trusted = InvalidRateLimitPropertyException.check("ratelimit.client-ip.trusted-proxies",
				() -> clientIp.getTrustedProxies().stream().map(IpRange::parse).toList());
		ClientIpResolver clientIpResolver = InvalidRateLimitPropertyException.check(
				"ratelimit.client-ip.ipv6-prefix-length", () -> new ClientIpResolver(trusted, clientIp.getHeader(),
						clientIp.getMaxForwardedElements(), clientIp.getIpv6PrefixLength()));
		IdentityResolver.Builder builder = IdentityResolver.builder()
			.clientIp(clientIpResolver)
			.apiKeyHeader(properties.getApiKey().getHeader());
		String hashSecret = properties.getApiKey().getHashSecret();
		ReloadableApiKeys keys = apiKeys.getIfAvailable();
		if (hashSecret != null && keys != null) {
			builder.apiKeys(keys, InvalidRateLimitPropertyException.check("ratelimit.api-key.hash-secret",
					() -> KeyedHasher.withSecret(hashSecret)));
		}
		tokenVerifier.ifAvailable(builder::tokenVerifier);
		principals.ifAvailable(builder::authenticatedPrincipals);
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	BucketStore rateLimitBucketStore(RateLimitProperties properties) {
		return InvalidRateLimitPropertyException.check("ratelimit.buckets.maximum-entries",
				() -> LocalBucketStore.create(properties.getBuckets().getMaximumEntries()));
	}

	@Bean
	@ConditionalOnMissingBean
	PermitStore rateLimitPermitStore(RateLimitProperties properties) {
		return InvalidRateLimitPropertyException.check("ratelimit.in-flight.maximum-keys",
				() -> LocalPermitStore.create(properties.getInFlight().getMaximumKeys()));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimiter rateLimiter(RateLimitProperties properties, EndpointResolver endpoints, ReloadablePolicies policies,
			IdentityResolver identities, BucketStore buckets, ObjectProvider<GlobalBucketStore> globalBuckets,
			PermitStore permits, ObjectProvider<GlobalPermitStore> globalPermits, ApplicationContext context) {
		String secret = properties.getKeySecret();
		KeyedHasher hasher = (secret != null)
				? InvalidRateLimitPropertyException.check("ratelimit.key-secret", () -> KeyedHasher.withSecret(secret))
				: KeyedHasher.withRandomSecret();
		EndpointWeights weights = InvalidRateLimitPropertyException.check("ratelimit.weights",
				() -> weights(properties.getWeights()));
		Set<EndpointTemplate> logins = InvalidRateLimitPropertyException.check("ratelimit.login.endpoints",
				() -> LoginEndpoints.templates(properties.getLogin()));
		// Every way of reaching a login handler is charged as the login.
		EndpointResolver charged = logins.isEmpty() ? endpoints
				: new LoginEndpointResolver(endpoints, context, logins);
		RateLimiter.Builder builder = RateLimiter.builder(charged, policies)
			.identities(identities)
			.buckets(buckets)
			.permits(permits)
			.bucketKeys(new BucketKeys(hasher, properties.getBuckets().isNetworkPerPrincipal()))
			.weights(weights)
			.legacyHeaders(properties.isLegacyHeaders())
			.rejectUnknownEndpoints(properties.getUnknownEndpoint() == RateLimitProperties.UnknownEndpoint.REJECT);
		globalBuckets.ifAvailable((global) -> builder.globalBuckets(global.store()).batchedGlobalBuckets(global.batched()));
		globalPermits.ifAvailable((global) -> builder.globalPermits(global.store()));
		InvalidRateLimitPropertyException.check("ratelimit.login.endpoints",
				() -> LoginEndpoints.register(properties.getLogin(), builder));
		return InvalidRateLimitPropertyException.check("ratelimit.weights", builder::build);
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitFilterRegistration")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(RateLimiter limiter,
			RateLimitProperties properties, ObjectProvider<RateLimitFilterListener> listeners,
			ObjectProvider<LoadShedder> shedder) {
		LoginOutcomes logins = InvalidRateLimitPropertyException.check("ratelimit.login.success-statuses",
				() -> LoginEndpoints.outcomes(properties.getLogin()));
		RateLimitFilter filter = new RateLimitFilter(limiter, properties.getFailureMode(),
				RateLimitFilterListener.of(listeners.orderedStream().toList()), logins);
		filter.setLoadShedder(shedder.getIfAvailable());
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
		// REQUEST only: error and async dispatches of a request were charged already.
		registration.setDispatcherTypes(DispatcherType.REQUEST);
		boolean beforeSecurity = properties.getFilter().getPosition() == FilterPosition.BEFORE_SECURITY;
		registration.setOrder(beforeSecurity ? SECURITY_FILTER_ORDER - 10 : SECURITY_FILTER_ORDER + 10);
		return registration;
	}

	/**
	 * Follows the tasks handlers hand to Spring MVC, so that a request that timed out keeps
	 * its permits while its task still runs.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitAsyncTasks")
	WebMvcConfigurer rateLimitAsyncTasks() {
		AsyncTasks tasks = new AsyncTasks();
		return new WebMvcConfigurer() {

			@Override
			public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
				configurer.registerCallableInterceptors(tasks);
			}

		};
	}

	/**
	 * Parses the templates of each named group, naming the group and the template on any
	 * mistake.
	 */
	static EndpointGroups groups(Map<String, List<String>> entries) {
		Map<String, Set<EndpointTemplate>> groups = new LinkedHashMap<>();
		entries.forEach((name, templates) -> {
			Set<EndpointTemplate> endpoints = new LinkedHashSet<>();
			for (String template : templates) {
				try {
					endpoints.add(EndpointTemplate.parse(template.strip()));
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException("group '" + name + "': " + ex.getMessage(), ex);
				}
			}
			groups.put(name, endpoints);
		});
		return EndpointGroups.of(groups);
	}

	/**
	 * Parses 'TEMPLATE=WEIGHT' entries, naming the property and the entry on any mistake.
	 */
	static EndpointWeights weights(List<String> entries) {
		Map<EndpointTemplate, Integer> weights = new LinkedHashMap<>();
		for (String entry : entries) {
			int equals = entry.lastIndexOf('=');
			try {
				if (equals < 0) {
					throw new IllegalArgumentException("expected 'TEMPLATE=WEIGHT'");
				}
				EndpointTemplate endpoint = EndpointTemplate.parse(entry.substring(0, equals).strip());
				weights.put(endpoint, Integer.valueOf(entry.substring(equals + 1).strip()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("entry '" + entry + "': " + ex.getMessage(), ex);
			}
		}
		return EndpointWeights.of(weights);
	}

}
