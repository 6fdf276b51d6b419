package io.ratelimit.autoconfigure.shed;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.netflix.concurrency.limits.Limit;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.shed.EndpointPriorities;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Load shedding, when {@code ratelimit.shedding.enabled=true}: the {@link LoadShedder} the
 * rate-limit filter consults right after endpoint resolution, its meters and its health.
 * Off by default; when off, nothing of it is created and the filter skips the stage.
 */
@AutoConfiguration(before = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ LoadShedder.class, Limit.class })
@ConditionalOnProperty(prefix = "ratelimit.shedding", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(SheddingProperties.class)
public class RateLimitSheddingAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LoadShedder rateLimitLoadShedder(SheddingProperties properties) {
		EndpointPriorities priorities = InvalidRateLimitPropertyException.check("ratelimit.shedding.priorities",
				() -> priorities(properties.getPriorities()));
		SheddingProperties.Probe probe = properties.getProbe();
		LoadShedder.Builder builder = LoadShedder.builder(priorities)
			.time(TimeSource.system())
			.shadow(properties.isShadow());
		InvalidRateLimitPropertyException.check("ratelimit.shedding",
				() -> builder.limits(properties.getMinLimit(), properties.getInitialLimit(), properties.getMaxLimit())
					.reserves(properties.getCriticalReserve(), properties.getDefaultReserve())
					.retryAfter(properties.getRetryAfter()));
		InvalidRateLimitPropertyException.check("ratelimit.shedding.probe", () -> builder
			.probe(probe.getInterval(), probe.getJitter(), probe.getSamples(), probe.getMaxDuration()));
		Integer probeLimit = probe.getLimit();
		if (probeLimit != null) {
			InvalidRateLimitPropertyException.check("ratelimit.shedding.probe.limit",
					() -> builder.probeLimit(probeLimit));
		}
		return builder.build();
	}

	/**
	 * Parses the templates of each class, naming the class and the template on any mistake.
	 */
	static EndpointPriorities priorities(Map<Priority, List<String>> entries) {
		Map<EndpointTemplate, Priority> priorities = new LinkedHashMap<>();
		entries.forEach((priority, templates) -> {
			for (String template : templates) {
				String name = priority.name().toLowerCase(Locale.ROOT);
				EndpointTemplate endpoint;
				try {
					endpoint = EndpointTemplate.parse(template.strip());
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException(name + ": " + ex.getMessage(), ex);
				}
				Priority earlier = priorities.putIfAbsent(endpoint, priority);
				if (earlier != null && earlier != priority) {
					throw new IllegalArgumentException("'" + endpoint + "' is listed as both "
							+ earlier.name().toLowerCase(Locale.ROOT) + " and " + name);
				}
			}
		});
		return EndpointPriorities.of(priorities);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class SheddingMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		SheddingMeterBinder rateLimitSheddingMeterBinder(LoadShedder shedder) {
			return new SheddingMeterBinder(shedder);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("ratelimitShedding")
	static class SheddingHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "ratelimitSheddingHealthIndicator")
		LoadSheddingHealthIndicator ratelimitSheddingHealthIndicator(LoadShedder shedder) {
			return new LoadSheddingHealthIndicator(shedder);
		}

	}

}
