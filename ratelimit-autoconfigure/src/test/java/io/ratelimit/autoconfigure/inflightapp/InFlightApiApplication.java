package io.ratelimit.autoconfigure.inflightapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An API whose handlers take their time: requests that block until the test lets them go,
 * asynchronous ones the test completes or lets time out, one that fails, and a fast one.
 */
@SpringBootApplication
public class InFlightApiApplication {

}
