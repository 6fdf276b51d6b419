package io.ratelimit.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A neutral, read-only view of an HTTP request: what the pipeline needs to know, without a
 * servlet API. Web integrations adapt their native request to this interface.
 */
public interface RateLimitRequest {

	/**
	 * Returns the HTTP method as sent, e.g. {@code GET}.
	 * @return the request method
	 */
	String method();

	/**
	 * Returns the request path without query string, as the application sees it (excluding
	 * any context path). Only used by endpoint resolvers that match paths themselves.
	 * @return the request path
	 */
	String path();

	/**
	 * Returns the address of the immediate peer (the TCP connection), not anything taken
	 * from a header.
	 * @return the peer address, or {@code null} if unknown
	 */
	@Nullable String remoteAddress();

	/**
	 * Returns every value of a header, one entry per header line, in the order received.
	 * @param name the header name, case-insensitive
	 * @return the header values, empty if absent
	 */
	List<String> headers(String name);

	/**
	 * Returns the single value of a header.
	 * @param name the header name, case-insensitive
	 * @return the first value, or {@code null} if absent
	 */
	default @Nullable String header(String name) {
		List<String> values = headers(name);
		return values.isEmpty() ? null : values.get(0);
	}

	/**
	 * Returns the native request object behind this view if it is of the given type, so a
	 * web integration's own {@code EndpointResolver} can reach it.
	 * @param <T> the native type
	 * @param type the native type
	 * @return the native request, or {@code null} if this view does not wrap one of that type
	 */
	default <T> @Nullable T unwrap(Class<T> type) {
		return null;
	}

}
