package com.example.newcomer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A blank web application with one endpoint, {@code GET /hello}, and the starter added as
 * the README says: nothing in it names the limiter.
 */
@SpringBootApplication
@RestController
public class NewcomerApplication {

	public static void main(String[] args) {
		SpringApplication.run(NewcomerApplication.class, args);
	}

	@GetMapping("/hello")
	String hello() {
		return "hello";
	}

}
