package io.ratelimit.autoconfigure.diagnostics;

import java.util.UUID;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.RateLimitDataAutoConfiguration;
import io.ratelimit.autoconfigure.testapp.Widget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Diagnostic#W010}: an application whose only JPA entities are the limiter's, with
 * Spring Boot's open-in-view left on by default, is told once; an application that set the
 * property, or has entities of its own, is not.
 */
@ExtendWith(OutputCaptureExtension.class)
class OpenInViewCheckTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
				TransactionAutoConfiguration.class, FlywayAutoConfiguration.class,
				RateLimitDataAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitDiagnosticsAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.flyway.locations=classpath:io/ratelimit/no-application-migrations");

	private static int count(CapturedOutput output) {
		return StringUtils.countOccurrencesOf(output.getAll(), "[RATELIMIT-W010]");
	}

	@Test
	void startWhenOnlyTheLimitersEntitiesAndOpenInViewByDefaultThenWarnedOnce(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(count(output)).isOne();
			assertThat(output.getAll()).contains("Set spring.jpa.open-in-view=false");
		});
	}

	@Test
	void startWhenOpenInViewSetEitherWayThenQuiet(CapturedOutput output) {
		this.runner.withPropertyValues("spring.jpa.open-in-view=false")
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("spring.jpa.open-in-view=true")
			.run((context) -> assertThat(context).hasNotFailed());

		assertThat(count(output)).isZero();
	}

	@Test
	void startWhenTheApplicationHasEntitiesOfItsOwnThenQuiet(CapturedOutput output) {
		this.runner.withUserConfiguration(ApplicationEntities.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(count(output)).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@AutoConfigurationPackage(basePackageClasses = Widget.class)
	static class ApplicationEntities {

	}

}
