package io.ratelimit.overload;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Puts Netflix's limiter in front of everything, when {@code overload.netflix=true}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "overload.netflix", havingValue = "true")
class NetflixArmConfiguration {

	@Bean
	FilterRegistrationBean<NetflixLimiterFilter> netflixLimiterFilter() {
		FilterRegistrationBean<NetflixLimiterFilter> registration = new FilterRegistrationBean<>(
				new NetflixLimiterFilter());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

}
