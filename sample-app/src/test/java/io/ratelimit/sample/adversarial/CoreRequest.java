package io.ratelimit.sample.adversarial;

import java.util.List;
import java.util.Map;

import io.ratelimit.core.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * A request handed to the core {@code RateLimiter} directly, for the in-process scenarios.
 */
record CoreRequest(String method, String path, @Nullable String remoteAddress, Map<String, String> headerValues)
		implements RateLimitRequest {

	static CoreRequest of(String method, String path, String from) {
		return new CoreRequest(method, path, from, Map.of());
	}

	CoreRequest with(String header, String value) {
		return new CoreRequest(this.method, this.path, this.remoteAddress, Map.of(header.toLowerCase(), value));
	}

	@Override
	public List<String> headers(String name) {
		String value = this.headerValues.get(name.toLowerCase());
		return (value != null) ? List.of(value) : List.of();
	}

}
