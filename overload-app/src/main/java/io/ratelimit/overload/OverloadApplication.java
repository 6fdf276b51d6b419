package io.ratelimit.overload;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The overload experiment's application. Which protection runs is chosen on the command
 * line: none ({@code ratelimit.policy.default-rps} high), a static rate limit (a low
 * {@code default-rps}), the starter's load shedding ({@code ratelimit.shedding.enabled}),
 * or Netflix's limiter ({@code overload.netflix=true}).
 */
@SpringBootApplication
public class OverloadApplication {

	public static void main(String[] args) {
		SpringApplication.run(OverloadApplication.class, args);
	}

}
