package io.ratelimit.autoconfigure.web;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MvcEndpointTemplates}: every route has a template, escaped where it must be, but
 * catch-alls and routes too long for any template, which are reported once at startup.
 */
@ExtendWith(OutputCaptureExtension.class)
class MvcEndpointTemplatesTest {

	private static final String TEN = "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9";

	private static final String HUNDRED = TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN;

	/** 400 characters that take 6 each once escaped: longer than any template. */
	private static final String HUGE = "/api/huge/" + HUNDRED + HUNDRED + HUNDRED + HUNDRED;

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withUserConfiguration(Routes.class);

	@Test
	void templatesWhenRoutesNeedEscapingOrAreTooLongThenEscapedOrReportedOnce(CapturedOutput output) {
		this.runner.run((context) -> {
			MvcEndpointTemplates templates = context.getBean(MvcEndpointTemplates.class);

			assertThat(templates.templates()).contains(EndpointTemplate.parse("GET /api/caf%C3%A9"))
				.noneMatch((template) -> "/**".equals(template.path()))
				.noneMatch((template) -> template.path().startsWith("/api/huge"));
			assertThat(StringUtils.countOccurrencesOf(output.getAll(), "[RATELIMIT-W012]")).isOne();
			assertThat(output.getAll()).contains("/api/huge/" + TEN);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Routes {

		@Bean
		MvcEndpointTemplates rateLimitEndpointTemplates(ApplicationContext context) {
			return new MvcEndpointTemplates(context);
		}

		@Bean
		Controller controller() {
			return new Controller();
		}

	}

	@RestController
	static class Controller {

		@GetMapping("/api/caf\u00e9")
		String cafe() {
			return "caf\u00e9";
		}

		@GetMapping(HUGE)
		String huge() {
			return "huge";
		}

		@GetMapping("/{*path}")
		String fallback() {
			return "fallback";
		}

	}

}
