package io.ratelimit.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimitRequest} built by hand.
 */
public final class TestRequest implements RateLimitRequest {

	private final String method;

	private final String path;

	private @Nullable String remoteAddress = "198.51.100.7";

	private final Map<String, List<String>> headers = new LinkedHashMap<>();

	private TestRequest(String method, String path) {
		this.method = method;
		this.path = path;
	}

	public static TestRequest get(String path) {
		return new TestRequest("GET", path);
	}

	public static TestRequest of(String method, String path) {
		return new TestRequest(method, path);
	}

	public TestRequest from(@Nullable String remoteAddress) {
		this.remoteAddress = remoteAddress;
		return this;
	}

	public TestRequest header(String name, String value) {
		this.headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), (key) -> new ArrayList<>()).add(value);
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
		return this.headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
	}

	@Override
	public String toString() {
		return this.method + " " + this.path + " from " + this.remoteAddress + " " + this.headers;
	}

}
