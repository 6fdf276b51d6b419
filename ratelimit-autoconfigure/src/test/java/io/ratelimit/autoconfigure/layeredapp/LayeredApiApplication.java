package io.ratelimit.autoconfigure.layeredapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An API of the shape layered limits are written for: reads, writes that create content
 * (a group of their own), a write that does not, and an endpoint kept on a single rate.
 */
@SpringBootApplication
public class LayeredApiApplication {

}
