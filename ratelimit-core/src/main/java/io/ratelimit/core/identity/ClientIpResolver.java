package io.ratelimit.core.identity;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

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

	private static final int FOR = 1;

	private static final int BY = 2;

	private static final int HOST = 4;

	private static final int PROTO = 8;

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
	 * Resolve the identity of a request.
	 * @param remoteAddr the address of the TCP peer, as reported by the server (never a value
	 * already rewritten from a forwarding header)
	 * @param headerLines every value of {@link #header()}, one per header line in the order
	 * received; empty when the header is absent. Not read at all unless the peer is trusted.
	 * @return the identity; {@link NetworkIdentity#INVALID} if the peer is not an IP literal
	 */
	public NetworkIdentity resolve(@Nullable String remoteAddr, List<String> headerLines) {
		byte[] peer = (remoteAddr != null) ? IpAddresses.parse(remoteAddr) : null;
		if (peer == null) {
			return NetworkIdentity.INVALID;
		}
		if (!isTrusted(peer) || headerLines.isEmpty()) {
			return key(peer);
		}
		return (this.header == ForwardingHeader.X_FORWARDED_FOR) ? resolveXForwardedFor(peer, headerLines)
				: resolveForwarded(peer, headerLines);
	}

	private NetworkIdentity resolveXForwardedFor(byte[] peer, List<String> lines) {
		// Joining the lines with "," and splitting is the same as splitting each line, last first.
		byte[] last = peer;
		int remaining = this.maxElements;
		for (int line = lines.size() - 1; line >= 0 && remaining > 0; line--) {
			String text = lines.get(line);
			int end = text.length();
			while (end >= 0 && remaining > 0) {
				int comma = text.lastIndexOf(',', end - 1);
				int start = skipWhitespace(text, comma + 1, end);
				int trimmedEnd = trimWhitespace(text, start, end);
				if (start < trimmedEnd) {
					remaining--;
					byte[] address = parseXForwardedForNode(text, start, trimmedEnd);
					NetworkIdentity stop = stopAt(address, last);
					if (stop != null) {
						return stop;
					}
					last = address;
				}
				end = comma;
			}
		}
		return key(last);
	}

	private NetworkIdentity resolveForwarded(byte[] peer, List<String> lines) {
		// A quoted string may span the joint of two lines, so the lines really are joined.
		String text = (lines.size() == 1) ? lines.get(0) : String.join(",", lines);
		int capacity = Math.min(this.maxElements, text.length() / 2 + 1);
		int[] bounds = new int[2 * capacity];
		int count = splitForwarded(text, bounds, capacity);
		byte[] last = peer;
		for (int element = count - 1; element >= 0 && element >= count - capacity; element--) {
			int slot = 2 * (element % capacity);
			byte[] address = parseForwardedElement(text, bounds[slot], bounds[slot + 1]);
			NetworkIdentity stop = stopAt(address, last);
			if (stop != null) {
				return stop;
			}
			last = address;
		}
		return key(last);
	}

	/**
	 * One step of the right-to-left walk.
	 * @return where the walk stops, or {@code null} to continue past this trusted address
	 */
	private @Nullable NetworkIdentity stopAt(byte @Nullable [] address, byte[] last) {
		if (address == null) {
			return key(last);
		}
		return isTrusted(address) ? null : key(address);
	}

	private boolean isTrusted(byte[] address) {
		for (IpRange range : this.trustedProxies) {
			if (range.contains(address)) {
				return true;
			}
		}
		return false;
	}

	private NetworkIdentity key(byte[] address) {
		if (address.length == 4) {
			return new NetworkIdentity(IpAddresses.format(address));
		}
		return new NetworkIdentity(
				IpAddresses.format(IpAddresses.mask(address, this.ipv6PrefixLength)) + this.ipv6Suffix);
	}

	/**
	 * Parse an {@code X-Forwarded-For} node: {@code v4}, {@code v6}, {@code [v6]},
	 * {@code v4:port} or {@code [v6]:port}.
	 */
	private static byte @Nullable [] parseXForwardedForNode(String text, int start, int end) {
		if (text.charAt(start) == '[') {
			return parseBracketedIpv6(text, start, end, false);
		}
		int colon = indexOf(text, ':', start, end);
		if (colon < 0 || indexOf(text, ':', colon + 1, end) >= 0) {
			// No colon, or several: the whole node is an address (a port needs brackets with IPv6).
			return IpAddresses.parse(text, start, end);
		}
		// Text without a colon can only be IPv4.
		return isPort(text, colon + 1, end, false) ? IpAddresses.parse(text, start, colon) : null;
	}

	/**
	 * Split a {@code Forwarded} value on the commas outside quoted strings, keeping the trimmed,
	 * non-empty elements in a ring of the last {@code capacity} ones.
	 * @return the number of elements found
	 */
	private static int splitForwarded(String text, int[] bounds, int capacity) {
		int count = 0;
		int start = 0;
		boolean quoted = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (quoted) {
				if (c == '\\') {
					i++;
				}
				else if (c == '"') {
					quoted = false;
				}
			}
			else if (c == '"') {
				quoted = true;
			}
			else if (c == ',') {
				count = addElement(text, start, i, bounds, capacity, count);
				start = i + 1;
			}
		}
		return addElement(text, start, text.length(), bounds, capacity, count);
	}

	private static int addElement(String text, int start, int end, int[] bounds, int capacity, int count) {
		int trimmedStart = skipWhitespace(text, start, end);
		int trimmedEnd = trimWhitespace(text, trimmedStart, end);
		if (trimmedStart == trimmedEnd) {
			return count;
		}
		int slot = 2 * (count % capacity);
		bounds[slot] = trimmedStart;
		bounds[slot + 1] = trimmedEnd;
		return count + 1;
	}

	/**
	 * Parse the {@code for} node of an RFC 7239 forwarded-element: {@code pair *(";" pair)}
	 * with {@code pair = token "=" (token / quoted-string)}, each parameter at most once.
	 * @return the address, or {@code null} if the element is malformed or its node is not an
	 * address ({@code unknown}, obfuscated, unquoted IPv6, missing)
	 */
	private static byte @Nullable [] parseForwardedElement(String text, int start, int end) {
		int seen = 0;
		@Nullable Set<String> extensions = null;
		int forValue = -1;
		int forEnd = -1;
		int i = start;
		while (true) {
			i = skipWhitespace(text, i, end);
			if (i < end && text.charAt(i) != ';') {
				int equals = endOfToken(text, i, end);
				int valueEnd = endOfValue(text, i, equals, end);
				if (valueEnd < 0) {
					return null;
				}
				int known = knownParameter(text, i, equals);
				if (known != 0 && (seen & known) != 0) {
					return null;
				}
				seen |= known;
				if (known == 0) {
					extensions = (extensions != null) ? extensions : new HashSet<>();
					if (!extensions.add(text.substring(i, equals).toLowerCase(Locale.ROOT))) {
						return null;
					}
				}
				if (known == FOR) {
					forValue = equals + 1;
					forEnd = valueEnd;
				}
				i = skipWhitespace(text, valueEnd, end);
				if (i < end && text.charAt(i) != ';') {
					return null;
				}
			}
			if (i >= end) {
				return (forValue >= 0) ? parseForwardedNode(text, forValue, forEnd) : null;
			}
			i++;
		}
	}

	/**
	 * Find the end of the value of the pair whose token name spans {@code [start, equals)}.
	 * @return the index after the token or quoted-string value, or -1 if the pair is not
	 * {@code token "=" (token / quoted-string)}
	 */
	private static int endOfValue(String text, int start, int equals, int end) {
		if (equals == start || equals == end || text.charAt(equals) != '=') {
			return -1;
		}
		int valueStart = equals + 1;
		int valueEnd = (valueStart < end && text.charAt(valueStart) == '"') ? endOfQuotedString(text, valueStart, end)
				: endOfToken(text, valueStart, end);
		return (valueEnd == valueStart) ? -1 : valueEnd;
	}

	private static int knownParameter(String text, int start, int end) {
		int length = end - start;
		if (length == 3 && text.regionMatches(true, start, "for", 0, 3)) {
			return FOR;
		}
		if (length == 2 && text.regionMatches(true, start, "by", 0, 2)) {
			return BY;
		}
		if (length == 4 && text.regionMatches(true, start, "host", 0, 4)) {
			return HOST;
		}
		if (length == 5 && text.regionMatches(true, start, "proto", 0, 5)) {
			return PROTO;
		}
		return 0;
	}

	/**
	 * Parse a {@code for} value: an unquoted IPv4 address, or a quoted {@code v4},
	 * {@code v4:port}, {@code [v6]} or {@code [v6]:port}, where port is RFC 7239's
	 * node-port (digits or an obfuscated {@code _name}).
	 */
	private static byte @Nullable [] parseForwardedNode(String text, int start, int end) {
		if (text.charAt(start) != '"') {
			// A token cannot hold a colon, so this is IPv4 or not an address ("unknown", "_obf").
			return IpAddresses.parse(text, start, end);
		}
		int contentStart = start + 1;
		int contentEnd = end - 1;
		if (contentStart == contentEnd || indexOf(text, '\\', contentStart, contentEnd) >= 0) {
			// An escaped address is no address a proxy would write.
			return null;
		}
		if (text.charAt(contentStart) == '[') {
			return parseBracketedIpv6(text, contentStart, contentEnd, true);
		}
		int colon = indexOf(text, ':', contentStart, contentEnd);
		if (colon < 0) {
			return IpAddresses.parse(text, contentStart, contentEnd);
		}
		// Unbracketed IPv6 fails here: "2001" is not IPv4.
		return isPort(text, colon + 1, contentEnd, true) ? IpAddresses.parse(text, contentStart, colon) : null;
	}

	private static byte @Nullable [] parseBracketedIpv6(String text, int start, int end, boolean obfuscatedPort) {
		int close = indexOf(text, ']', start, end);
		if (close < 0) {
			return null;
		}
		if (close + 1 < end && (text.charAt(close + 1) != ':' || !isPort(text, close + 2, end, obfuscatedPort))) {
			return null;
		}
		if (indexOf(text, ':', start + 1, close) < 0) {
			// "[1.2.3.4]": brackets are only for IPv6.
			return null;
		}
		return IpAddresses.parse(text, start + 1, close);
	}

	/** Like {@link String#indexOf(int, int)}, but never reads past {@code end}. */
	private static int indexOf(String text, char c, int start, int end) {
		for (int i = start; i < end; i++) {
			if (text.charAt(i) == c) {
				return i;
			}
		}
		return -1;
	}

	/** RFC 7239 node-port: {@code 1*5DIGIT}, or {@code "_" 1*(ALPHA / DIGIT / "." / "_" / "-")}. */
	private static boolean isPort(String text, int start, int end, boolean obfuscatedAllowed) {
		if (obfuscatedAllowed && start < end && text.charAt(start) == '_') {
			for (int i = start + 1; i < end; i++) {
				char c = text.charAt(i);
				if (!isAlphaOrDigit(c) && c != '.' && c != '_' && c != '-') {
					return false;
				}
			}
			return end - start > 1;
		}
		if (end - start < 1 || end - start > 5) {
			return false;
		}
		for (int i = start; i < end; i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				return false;
			}
		}
		return true;
	}

	/** @return the index after the closing quote, or -1 if the quoted string is malformed */
	private static int endOfQuotedString(String text, int start, int end) {
		for (int i = start + 1; i < end; i++) {
			char c = text.charAt(i);
			if (c == '"') {
				return i + 1;
			}
			if (c == '\\') {
				i++;
				if (i == end || !isQuotedPairChar(text.charAt(i))) {
					return -1;
				}
			}
			else if (!isQuotedTextChar(c)) {
				return -1;
			}
		}
		return -1;
	}

	private static int endOfToken(String text, int start, int end) {
		int i = start;
		while (i < end && isTokenChar(text.charAt(i))) {
			i++;
		}
		return i;
	}

	/** RFC 9110 tchar. */
	private static boolean isTokenChar(char c) {
		return isAlphaOrDigit(c) || (c < 0x80 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
	}

	/** RFC 9110 qdtext: HTAB, SP, visible ASCII except quote and backslash, obs-text. */
	private static boolean isQuotedTextChar(char c) {
		return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e)
				|| (c >= 0x80 && c <= 0xff);
	}

	private static boolean isQuotedPairChar(char c) {
		return c == '\t' || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff);
	}

	private static boolean isAlphaOrDigit(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
	}

	/** Skip HTTP optional whitespace (SP and HTAB only: other control characters are garbage). */
	private static int skipWhitespace(String text, int start, int end) {
		int i = start;
		while (i < end && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
			i++;
		}
		return i;
	}

	private static int trimWhitespace(String text, int start, int end) {
		int i = end;
		while (i > start && (text.charAt(i - 1) == ' ' || text.charAt(i - 1) == '\t')) {
			i--;
		}
		return i;
	}

	@Override
	public String toString() {
		return "ClientIpResolver[header=" + this.header.headerName() + ", trustedProxies="
				+ List.of(this.trustedProxies) + ", maxElements=" + this.maxElements + ", ipv6PrefixLength="
				+ this.ipv6PrefixLength + "]";
	}

}
