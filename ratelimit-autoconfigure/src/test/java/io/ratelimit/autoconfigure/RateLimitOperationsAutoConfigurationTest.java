package io.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.actuate.RateLimitEndpoint;
import io.ratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import io.ratelimit.autoconfigure.metrics.RateLimitDecisionMetrics;
import io.ratelimit.autoconfigure.metrics.RateLimitMeterBinder;
import io.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.ratelimit.autoconfigure.web.RateLimitFilter;
import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conditions of the Actuator endpoint and of the metrics, and the listeners the filter
 * tells, each on a context of its own.
 */
class RateLimitOperationsAutoConfigurationTest {

	private static final AutoConfigurations METRICS = AutoConfigurations.of(MetricsAutoConfiguration.class,
			SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, RateLimitDataAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitEndpointAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

	@Test
	void runWhenEndpointExposedOverWebThenEndpointPresent() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimit")
			.run((context) -> assertThat(context).hasSingleBean(RateLimitEndpoint.class));
	}

	@Test
	void runWhenEndpointNotExposedThenEndpointAbsent() {
		// Actuator's default exposes health alone, over the web and over JMX.
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RateLimitEndpoint.class);
		});
	}

	@Test
	void runWhenActuatorMissingThenEndpointAbsent() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimit")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitEndpoint.class);
			});
	}

	@Test
	void runWhenLimitingDisabledThenNeitherEndpointNorMetrics() {
		this.runner.withConfiguration(METRICS)
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimit", "ratelimit.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitEndpoint.class);
				assertThat(context).doesNotHaveBean(RateLimitDecisionMetrics.class);
			});
	}

	@Test
	void runWhenMeterRegistryPresentThenMetersRegistered() {
		this.runner.withConfiguration(METRICS).run((context) -> {
			assertThat(context).hasSingleBean(RateLimitDecisionMetrics.class);
			assertThat(context).hasSingleBean(RateLimitMeterBinder.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("ratelimit.failures").counter().count()).isZero();
			assertThat(registry.get("ratelimit.buckets.entries").gauge().value()).isZero();
			assertThat(registry.get("ratelimit.buckets.evictions").functionCounter().count()).isZero();
			assertThat(registry.get("ratelimit.policy.reloads").tag("result", "failure").functionCounter().count())
				.isZero();
			assertThat(registry.get("ratelimit.policy.snapshot.age").timeGauge()).isNotNull();
		});
	}

	@Test
	void runWhenNoMeterRegistryThenNoMetrics() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RateLimitDecisionMetrics.class);
			assertThat(context).doesNotHaveBean(RateLimitMeterBinder.class);
		});
	}

	@Test
	void runWhenMicrometerMissingThenNoMetrics() {
		this.runner.withUserConfiguration(RegistryConfiguration.class)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitDecisionMetrics.class);
			});
	}

	@Test
	void doFilterWhenSeveralListenersAndMetricsThenEachIsToldInOrder() {
		this.runner.withConfiguration(METRICS).withUserConfiguration(ListenersConfiguration.class).run((context) -> {
			RateLimitFilter filter = (RateLimitFilter) context
				.getBean("rateLimitFilterRegistration", FilterRegistrationBean.class)
				.getFilter();
			MockHttpServletRequest request = new MockHttpServletRequest("GET", "/no/such/path");
			request.setRemoteAddr("203.0.113.9");

			filter.doFilter(request, new MockHttpServletResponse(), new MockFilterChain());

			assertThat(context.getBean(ListenersConfiguration.class).told).containsExactly("first", "second");
			assertThat(context.getBean(MeterRegistry.class)
				.get("ratelimit.decisions")
				.tags("endpoint", "UNKNOWN", "outcome", "allowed")
				.counter()
				.count()).isEqualTo(1);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		io.micrometer.core.instrument.simple.SimpleMeterRegistry meterRegistry() {
			return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenersConfiguration {

		final List<String> told = new ArrayList<>();

		@Bean
		@Order(2)
		RateLimitFilterListener second() {
			return listener("second");
		}

		@Bean
		@Order(1)
		RateLimitFilterListener first() {
			return listener("first");
		}

		private RateLimitFilterListener listener(String name) {
			return new RateLimitFilterListener() {

				@Override
				public void onDecision(HttpServletRequest request, Decision decision) {
					ListenersConfiguration.this.told.add(name);
				}

			};
		}

	}

}
