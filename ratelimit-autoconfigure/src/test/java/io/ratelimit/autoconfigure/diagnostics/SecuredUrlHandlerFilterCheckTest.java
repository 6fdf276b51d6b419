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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.FilterChainProxy;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;
import org.springframework.util.StringUtils;
import org.springframework.web.filter.UrlHandlerFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Diagnostic#W013}: a {@code UrlHandlerFilter} inside Spring Security's filter chain,
 * where the limiter cannot apply it, is reported once; one declared as a filter bean is not.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecuredUrlHandlerFilterCheckTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
				TransactionAutoConfiguration.class, FlywayAutoConfiguration.class,
				RateLimitDataAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitDiagnosticsAutoConfiguration.class))
		.withUserConfiguration(Entities.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.jpa.open-in-view=false",
				"spring.flyway.locations=classpath:io/ratelimit/no-application-migrations");

	private static int count(CapturedOutput output) {
		return StringUtils.countOccurrencesOf(output.getAll(), "[RATELIMIT-W013]");
	}

	@Test
	void startWhenUrlHandlerFilterInSecurityFilterChainThenWarnedOnce(CapturedOutput output) {
		this.runner.withUserConfiguration(SecuredFilter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(count(output)).isOne();
			assertThat(output.getAll()).contains("Declare the UrlHandlerFilter as a filter bean");
		});
	}

	@Test
	void startWhenUrlHandlerFilterIsAFilterBeanThenQuiet(CapturedOutput output) {
		this.runner.withUserConfiguration(FilterBean.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(count(output)).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@AutoConfigurationPackage(basePackageClasses = Widget.class)
	static class Entities {

	}

	@Configuration(proxyBeanMethods = false)
	static class SecuredFilter {

		@Bean
		FilterChainProxy springSecurityFilterChain() {
			return new FilterChainProxy(new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE,
					UrlHandlerFilter.trailingSlashHandler("/api/**").wrapRequest().build()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FilterBean {

		@Bean
		UrlHandlerFilter trailingSlashFilter() {
			return UrlHandlerFilter.trailingSlashHandler("/api/**").wrapRequest().build();
		}

		@Bean
		FilterChainProxy springSecurityFilterChain() {
			return new FilterChainProxy(new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE));
		}

	}

}
