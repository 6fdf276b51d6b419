package io.ratelimit.autoconfigure.shed;

import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitDataAutoConfiguration;
import io.ratelimit.autoconfigure.web.RateLimitFilter;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When load shedding is wired, and what a mistake in its settings says.
 */
class RateLimitSheddingAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, RateLimitDataAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitSheddingAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

	@Test
	void runWhenSheddingNotEnabledThenNoShedderAndTheFilterSkipsTheStage() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(LoadShedder.class);
			assertThat(ReflectionTestUtils.getField(filter(context.getBean("rateLimitFilterRegistration")), "shedder"))
				.isNull();
			assertThat(context.getBean(MeterRegistry.class).find("ratelimit.shedding.limit").gauge()).isNull();
		});
	}

	@Test
	void runWhenSheddingEnabledThenFilterShedsWithTheConfiguredClasses() {
		this.runner
			.withPropertyValues("ratelimit.shedding.enabled=true",
					"ratelimit.shedding.priorities.critical=POST /api/payments, PUT /api/payments/*",
					"ratelimit.shedding.priorities.sheddable=GET /api/reports")
			.run((context) -> {
				LoadShedder shedder = context.getBean(LoadShedder.class);
				assertThat(ReflectionTestUtils.getField(filter(context.getBean("rateLimitFilterRegistration")),
						"shedder"))
					.isSameAs(shedder);
				assertThat(shedder.priorityOf(EndpointTemplate.parse("PUT /api/payments/*")))
					.isEqualTo(Priority.CRITICAL);
				assertThat(shedder.priorityOf(EndpointTemplate.parse("GET /api/reports"))).isEqualTo(Priority.SHEDDABLE);
				assertThat(shedder.priorityOf(EndpointTemplate.parse("GET /api/other"))).isEqualTo(Priority.DEFAULT);
				assertThat(shedder.currentLimit()).isEqualTo(20);
				assertThat(context.getBean(MeterRegistry.class).get("ratelimit.shedding.limit").gauge().value())
					.isEqualTo(20);
			});
	}

	@Test
	void runWhenEndpointListedInTwoClassesThenFailsNamingIt() {
		this.runner
			.withPropertyValues("ratelimit.shedding.enabled=true",
					"ratelimit.shedding.priorities.critical=GET /api/reports",
					"ratelimit.shedding.priorities.sheddable=GET /api/reports")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("'GET /api/reports' is listed as both"));
	}

	@Test
	void runWhenUnknownListedAsCriticalThenFailsNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.shedding.enabled=true", "ratelimit.shedding.priorities.critical=UNKNOWN")
			.run((context) -> assertThat(context).getFailure()
				.hasRootCauseInstanceOf(IllegalArgumentException.class)
				.hasStackTraceContaining(InvalidRateLimitPropertyException.class.getSimpleName())
				.hasStackTraceContaining("always SHEDDABLE"));
	}

	@Test
	void runWhenReservesLeaveNothingForSheddableThenFailsNamingTheSetting() {
		this.runner
			.withPropertyValues("ratelimit.shedding.enabled=true", "ratelimit.shedding.critical-reserve=0.5",
					"ratelimit.shedding.default-reserve=0.5")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("critical-reserve plus default-reserve must be below 1"));
	}

	private static RateLimitFilter filter(Object registration) {
		return (RateLimitFilter) ((FilterRegistrationBean<?>) registration).getFilter();
	}

}
