package io.ratelimit.autoconfigure.shedapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An API with endpoints of each priority class whose handlers can be held in flight, to
 * fill the concurrency limit on purpose.
 */
@SpringBootApplication
public class SheddingApplication {

}
