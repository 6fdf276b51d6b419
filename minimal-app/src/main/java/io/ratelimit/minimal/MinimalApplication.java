package io.ratelimit.minimal;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A blank web application with the starter added: the load test's measure of what the limiter
 * costs an application whose requests cost little themselves.
 */
@SpringBootApplication
public class MinimalApplication {

	public static void main(String[] args) {
		SpringApplication.run(MinimalApplication.class, args);
	}

}
