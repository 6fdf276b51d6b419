package io.ratelimit.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.ratelimit.core.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimitRequest} built in memory, for the benchmarks of the framework-free
 * core. Header names are case-insensitive, as in a servlet container.
 */
final class SimpleRequest implements RateLimitRequest {

	private final String method;

	private final String path;

	private final @Nullable String remoteAddress;

	private final Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

	SimpleRequest(String method, String path, @Nullable String remoteAddress) {
		this.method = method;
		this.path = path;
		this.remoteAddress = remoteAddress;
	}

	SimpleRequest header(String name, String value) {
		this.headers.put(name, List.of(value));
		return this;
	}

	@Override
	public String method() {
		return this.method;
	}

	@Override
	public String path() {
		return this.path;
	}

	@Override
	public @Nullable String remoteAddress() {
		return this.remoteAddress;
	}

	@Override
	public List<String> headers(String name) {
		return this.headers.getOrDefault(name, List.of());
	}

}
