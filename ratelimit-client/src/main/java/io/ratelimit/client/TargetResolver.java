package io.ratelimit.client;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Maps an outgoing request to the {@link Target} whose pacing it shares.
 *
 * <p>A server limits per endpoint template ({@code GET /api/products/*}), so calls to
 * {@code /api/products/1} and {@code /api/products/2} must share one state. The default,
 * {@link #byEndpoint()}, collapses the path segments that look like identifiers (numbers,
 * UUIDs, long hexadecimal strings) to {@code *}; an application whose identifiers look like
 * words supplies its own resolver, or {@link #byHost()} for an API with one quota.
 */
@FunctionalInterface
public interface TargetResolver {

	/**
	 * Returns the target of a request.
	 * @param method the HTTP method
	 * @param uri the absolute request URI
	 * @return the target
	 */
	Target resolve(String method, URI uri);

	/**
	 * Returns the resolver that keys by method, host and path with identifier segments
	 * collapsed to {@code *}.
	 * @return the default resolver
	 */
	static TargetResolver byEndpoint() {
		return EndpointTargets.INSTANCE;
	}

	/**
	 * Returns a resolver that gives every request to the same host one target, for an API
	 * whose quota covers all of its endpoints.
	 * @return the per-host resolver
	 */
	static TargetResolver byHost() {
		return (method, uri) -> new Target(EndpointTargets.host(uri), "*");
	}

	/** The default resolver. */
	enum EndpointTargets implements TargetResolver {

		INSTANCE;

		private static final Pattern IDENTIFIER = Pattern
			.compile("\\d+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,}");

		@Override
		public Target resolve(String method, URI uri) {
			Objects.requireNonNull(uri, "uri must not be null");
			String path = uri.getRawPath();
			StringBuilder endpoint = new StringBuilder(method.toUpperCase(Locale.ROOT)).append(' ');
			if (path == null || path.isEmpty()) {
				endpoint.append('/');
			}
			else {
				String[] segments = path.split("/", -1);
				for (int i = 1; i < segments.length; i++) {
					endpoint.append('/').append(IDENTIFIER.matcher(segments[i]).matches() ? "*" : segments[i]);
				}
			}
			return new Target(host(uri), endpoint.toString());
		}

		static String host(URI uri) {
			String host = uri.getHost();
			if (host == null) {
				throw new IllegalArgumentException("A paced request needs an absolute URI, but was " + uri);
			}
			return (uri.getPort() < 0) ? host.toLowerCase(Locale.ROOT) : host.toLowerCase(Locale.ROOT) + ":" + uri.getPort();
		}

	}

}
