package io.ratelimit.client;

import java.util.Objects;

/**
 * What one pacing state is kept for: a host and an endpoint on it. Requests to the same
 * target share a waiting line and a strategy's state; different targets never wait for each
 * other.
 *
 * @param host the authority, e.g. {@code api.example.com:8443}
 * @param endpoint the endpoint, e.g. {@code GET /api/products/*}
 */
public record Target(String host, String endpoint) {

	public Target {
		Objects.requireNonNull(host, "host must not be null");
		Objects.requireNonNull(endpoint, "endpoint must not be null");
	}

	@Override
	public String toString() {
		return this.endpoint + " on " + this.host;
	}

}
