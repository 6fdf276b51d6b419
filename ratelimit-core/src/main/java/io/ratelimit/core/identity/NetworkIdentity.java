package io.ratelimit.core.identity;

import java.util.Objects;

/**
 * The network identity of a client: an IPv4 address, an IPv6 prefix such as
 * {@code 2001:db8:a:12::/64}, or {@link #INVALID} when the peer address cannot be parsed.
 * Requests that share a network identity share anonymous buckets.
 *
 * @param key the canonical text form, stable for every request from the same client network
 */
public record NetworkIdentity(String key) {

	/**
	 * The single identity shared by every request whose peer address is not a valid IP
	 * address, so malformed peers share one bucket rather than escaping limits.
	 */
	public static final NetworkIdentity INVALID = new NetworkIdentity("invalid");

	public NetworkIdentity {
		Objects.requireNonNull(key, "key must not be null");
	}

	@Override
	public String toString() {
		return this.key;
	}

}
