package io.ratelimit.core.identity;

import java.util.List;
import java.util.Objects;

import io.ratelimit.core.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the {@link NetworkIdentity} of a request from its peer address and, only when the
 * peer is a trusted proxy, from one forwarding header.
 * <p>
 * The peer address is the only thing a client cannot forge, so it is the identity unless it
 * belongs to a trusted proxy. Forwarding headers are read right to left, because each proxy
 * appends the address it saw and only the values appended by trusted proxies are facts; the
 * leftmost value is whatever the client chose to send. The walk stops at the first address
 * that is not a trusted proxy, or at the first element that is not a valid node, in which
 * case the nearest valid hop is the identity (garbage never becomes an identity and never
 * lets a client skip past a proxy). At most {@code maxElements} elements are read, counted
 * from the right.
 * <p>
 * IPv4 identities are the address; IPv6 identities are the address masked to a prefix
 * (default {@code /64}, one customer site), because a single client can use every address of
 * its prefix. Trust checks use the full address. A peer that is not an IP literal gets
 * {@link NetworkIdentity#INVALID}, which all such peers share.
 * <p>
 * Instances are immutable and thread-safe. This runs on every request: it uses no regular
 * expressions and no exceptions on malformed input, and never resolves a host name.
 */
public final class ClientIpResolver {

	private final IpRange[] trustedProxies;

	private final ForwardingHeader header;

	private final int maxElements;

	private final int ipv6PrefixLength;

	private final String ipv6Suffix;

	/**
	 * Create a resolver.
	 * @param trustedProxies the ranges of the proxies whose forwarding header is believed;
	 * empty to believe no header at all
	 * @param header the single forwarding header to read
	 * @param maxElements the maximum number of header elements to read, counted from the right
	 * @param ipv6PrefixLength the prefix length (1-128) that IPv6 identities are masked to
	 * @throws IllegalArgumentException if a number is out of range
	 */
	public ClientIpResolver(List<IpRange> trustedProxies, ForwardingHeader header, int maxElements,
			int ipv6PrefixLength) {
		Objects.requireNonNull(trustedProxies, "trustedProxies must not be null");
		Objects.requireNonNull(header, "header must not be null");
		if (maxElements < 1) {
			throw new IllegalArgumentException("maxElements must be at least 1 but was " + maxElements);
		}
		if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
			throw new IllegalArgumentException(
					"ipv6PrefixLength must be between 1 and 128 but was " + ipv6PrefixLength);
		}
		this.trustedProxies = trustedProxies.toArray(new IpRange[0]);
		for (IpRange range : this.trustedProxies) {
			Objects.requireNonNull(range, () -> "trustedProxies must not contain null: " + trustedProxies);
		}
		this.header = header;
		this.maxElements = maxElements;
		this.ipv6PrefixLength = ipv6PrefixLength;
		this.ipv6Suffix = "/" + ipv6PrefixLength;
	}

	/**
	 * Return a resolver with the safe defaults: no trusted proxies (so the identity is always
	 * the peer address), {@code X-Forwarded-For}, 32 elements and IPv6 {@code /64}.
	 * @return a resolver that ignores forwarding headers
	 */
	public static ClientIpResolver untrusting() {
		return new ClientIpResolver(List.of(), ForwardingHeader.X_FORWARDED_FOR, 32, 64);
	}

	/**
	 * Return the forwarding header that this resolver reads.
	 * @return the header whose values should be passed to {@link #resolve(String, List)}
	 */
	public ForwardingHeader header() {
		return this.header;
	}

	/**
	 * Resolve the identity of a request, reading its forwarding header only if some proxy is
	 * trusted: without one, the header could never count and every request would pay for
	 * looking it up.
	 * @param request the request
	 * @return the identity; {@link NetworkIdentity#INVALID} if the peer is not an IP literal
	 */
	public NetworkIdentity resolve(RateLimitRequest request) {
		List<String> headerLines = (this.trustedProxies.length == 0) ? List.of()
				: request.headers(this.header.headerName());
		return resolve(request.remoteAddress(), headerLines);
	}

	/**
	 * Resolve the identity of a request.
	 * @param remoteAddr the address of the TCP peer, as reported by the server (never a value
	 * already rewritten from a forwarding header)
	 * @param headerLines every value of {@link #header()}, one per header line in the order
	 * received; empty when the header is absent. Not read at all unless the peer is trusted.
	 * @return the identity; {@link NetworkIdentity#INVALID} if the peer is not an IP literal
	 */
	public NetworkIdentity resolve(@Nullable String remoteAddr, List<String> headerLines) {
		// Without trusted proxies an IPv4 peer is its own key: no bytes to parse it into.
		if (this.trustedProxies.length == 0 && remoteAddr != null && IpAddresses.isIpv4(remoteAddr)) {
			return new NetworkIdentity(remoteAddr);
		}
		byte[] peer = (remoteAddr != null) ? IpAddresses.parse(remoteAddr) : null;
		if (peer == null) {
			return NetworkIdentity.INVALID;
		}
		if (!isTrusted(peer) || headerLines.isEmpty()) {
			return peerKey(peer, remoteAddr);
		}
		if (this.header == ForwardingHeader.X_FORWARDED_FOR) {
			return walk(peer, new XForwardedForElements(headerLines, this.maxElements));
		}
		return walk(peer, new ForwardedElements(headerLines, this.maxElements));
	}

	/**
	 * The trust walk of SPEC-HTTP section 3, as described on this class: the first untrusted
	 * address is the identity, and garbage yields the nearest valid hop instead.
	 */
	private NetworkIdentity walk(byte[] peer, ForwardingElements elements) {
		byte[] last = peer;
		while (elements.advance()) {
			byte @Nullable [] address = elements.address();
			if (address == null) {
				return key(last);
			}
			if (!isTrusted(address)) {
				return key(address);
			}
			last = address;
		}
		return key(last);
	}

	private boolean isTrusted(byte[] address) {
		for (IpRange range : this.trustedProxies) {
			if (range.contains(address)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The key of the peer itself. A dotted IPv4 literal that parsed is already in canonical
	 * form (the parser refuses leading zeros), so it is its own key; an IPv4-mapped IPv6
	 * literal, which also parses to four bytes, is not.
	 */
	private NetworkIdentity peerKey(byte[] peer, String remoteAddr) {
		if (peer.length == 4 && remoteAddr.indexOf(':') < 0) {
			return new NetworkIdentity(remoteAddr);
		}
		return key(peer);
	}

	private NetworkIdentity key(byte[] address) {
		if (address.length == 4) {
			return new NetworkIdentity(IpAddresses.format(address));
		}
		return new NetworkIdentity(
				IpAddresses.format(IpAddresses.mask(address, this.ipv6PrefixLength)) + this.ipv6Suffix);
	}

	@Override
	public String toString() {
		return "ClientIpResolver[header=" + this.header.headerName() + ", trustedProxies="
				+ List.of(this.trustedProxies) + ", maxElements=" + this.maxElements + ", ipv6PrefixLength="
				+ this.ipv6PrefixLength + "]";
	}

}
