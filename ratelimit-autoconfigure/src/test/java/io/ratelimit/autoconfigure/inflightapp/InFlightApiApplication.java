package io.ratelimit.autoconfigure.inflightapp;

import io.ratelimit.autoconfigure.web.AsyncTasks;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * An API whose handlers take their time: requests that block until the test lets them go,
 * asynchronous ones the test completes or lets time out, one that fails, and a fast one.
 * <p>
 * It registers the limiter's {@link AsyncTasks} once more, as an application that extends
 * {@code WebMvcConfigurationSupport} would: two instances in one chain must each count a
 * task and uncount it.
 */
@SpringBootApplication
public class InFlightApiApplication {

	@Bean
	WebMvcConfigurer asyncTasksOnceMore() {
		return new WebMvcConfigurer() {

			@Override
			public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
				configurer.registerCallableInterceptors(new AsyncTasks());
			}

		};
	}

}
