package io.ratelimit.autoconfigure.testapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application with its own entity, repository and Flyway migration, and a few
 * endpoints of the shapes the limiter must tell apart.
 */
@SpringBootApplication
public class TestShopApplication {

}
