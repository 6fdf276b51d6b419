package io.ratelimit.peer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * The sample shop's catalogue, rate-limited by {@code bucket4j-spring-boot-starter} instead
 * of this project: the peer of the end-to-end load test ({@code scripts/load-test.sh}).
 * <p>
 * It has the sample's web stack (Spring MVC, Spring Security's filter chain, Actuator with
 * Prometheus) and the sample's {@link ProductController}, so that under load the two
 * applications differ in their rate limiter only. It has no database: the peer keeps its
 * limits in properties. {@code bucket4j.enabled=false} runs it without a limiter, as its
 * own baseline.
 * <p>
 * {@code @EnableCaching} is what makes Spring Boot create the JCache {@code CacheManager}
 * the starter looks its buckets up in.
 */
@SpringBootApplication
@EnableCaching
public class PeerApplication {

	public static void main(String[] args) {
		SpringApplication.run(PeerApplication.class, args);
	}

}
