package io.ratelimit.core.identity;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import static io.ratelimit.core.identity.HeaderSyntax.endOfQuotedString;
import static io.ratelimit.core.identity.HeaderSyntax.endOfToken;
import static io.ratelimit.core.identity.HeaderSyntax.indexOf;
import static io.ratelimit.core.identity.HeaderSyntax.isPort;
import static io.ratelimit.core.identity.HeaderSyntax.parseBracketedIpv6;
import static io.ratelimit.core.identity.HeaderSyntax.skipWhitespace;
import static io.ratelimit.core.identity.HeaderSyntax.trimWhitespace;

/**
 * The elements of the RFC 7239 {@code Forwarded} header, each
 * {@code pair *(";" pair)} with {@code pair = token "=" (token / quoted-string)}, whose
 * address is the node of its {@code for} parameter.
 * <p>
 * A comma inside a quoted string separates nothing, and the client writes the left part of
 * the value as it likes, so the value is split from the right: the proxies append whole
 * elements, well formed, and read from the right their quotes pair up (an escaped quote,
 * after an odd number of backslashes, with none), whatever quotes or backslashes the client
 * left open before them. Read left to right, a quote the client leaves open would swallow
 * every element appended after it, or pair with an escaped quote of a proxy's element and
 * cut that element where the client chose. What the client wrote ends up in the leftmost
 * elements, malformed at worst.
 */
final class ForwardedElements implements ForwardingElements {

	private static final int FOR = 1;

	private static final int BY = 2;

	private static final int HOST = 4;

	private static final int PROTO = 8;

	private final String text;

	/** {@code start, end} pairs of the last {@code maxElements} elements, leftmost first. */
	private final int[] bounds;

	/** The index of the current element. */
	private int element;

	ForwardedElements(List<String> lines, int maxElements) {
		// A quoted string may span the joint of two lines, so the lines really are joined.
		this.text = (lines.size() == 1) ? lines.get(0) : String.join(",", lines);
		// A non-empty element and its comma take two characters: never allocate beyond that.
		int capacity = Math.min(maxElements, this.text.length() / 2 + 1);
		this.bounds = new int[2 * capacity];
		this.element = split(this.text, this.bounds, capacity);
	}

	@Override
	public boolean advance() {
		if (this.element <= 0) {
			return false;
		}
		this.element--;
		return true;
	}

	@Override
	public byte @Nullable [] address() {
		int slot = 2 * this.element;
		return parseElement(this.text, this.bounds[slot], this.bounds[slot + 1]);
	}

	/**
	 * Split a {@code Forwarded} value on the commas outside quoted strings from the right,
	 * pairing quotes from the right, keeping the trimmed, non-empty elements, at most
	 * {@code capacity} of them, in slots {@code 0..count-1}, leftmost first. A quote that is
	 * the second character of a quoted-pair pairs with nothing: a proxy may escape quotes in
	 * the elements it appends, and reading such a quote as an end would cut the proxy's
	 * element where the client chose.
	 * @return the number of elements kept
	 */
	private static int split(String text, int[] bounds, int capacity) {
		int count = 0;
		int end = text.length();
		boolean quoted = false;
		for (int i = end - 1; i >= 0 && count < capacity; i--) {
			char c = text.charAt(i);
			if (c == '"' && !isEscaped(text, i)) {
				quoted = !quoted;
			}
			else if (c == ',' && !quoted) {
				count = addElement(text, i + 1, end, bounds, count);
				end = i;
			}
		}
		if (count < capacity) {
			count = addElement(text, 0, end, bounds, count);
		}
		reverse(bounds, count);
		return count;
	}

	/**
	 * Whether the quote at {@code quote} is escaped: preceded by an odd number of
	 * backslashes, since in a quoted string each backslash starts a pair (RFC 7230
	 * quoted-pair). Each quote looks back only over the backslashes right before it, so a
	 * value costs no more than one more pass over it.
	 */
	private static boolean isEscaped(String text, int quote) {
		int backslash = quote - 1;
		while (backslash >= 0 && text.charAt(backslash) == '\\') {
			backslash--;
		}
		return ((quote - 1 - backslash) & 1) == 1;
	}

	/** Reverse the order of the first {@code count} {@code start, end} pairs. */
	private static void reverse(int[] bounds, int count) {
		for (int left = 0, right = count - 1; left < right; left++, right--) {
			int start = bounds[2 * left];
			int end = bounds[2 * left + 1];
			bounds[2 * left] = bounds[2 * right];
			bounds[2 * left + 1] = bounds[2 * right + 1];
			bounds[2 * right] = start;
			bounds[2 * right + 1] = end;
		}
	}

	private static int addElement(String text, int start, int end, int[] bounds, int count) {
		int trimmedStart = skipWhitespace(text, start, end);
		int trimmedEnd = trimWhitespace(text, trimmedStart, end);
		if (trimmedStart == trimmedEnd) {
			return count;
		}
		int slot = 2 * count;
		bounds[slot] = trimmedStart;
		bounds[slot + 1] = trimmedEnd;
		return count + 1;
	}

	/**
	 * Parse the {@code for} node of a forwarded-element, each parameter at most once.
	 * @return the address, or {@code null} if the element is malformed or its node is not an
	 * address ({@code unknown}, obfuscated, unquoted IPv6, missing)
	 */
	private static byte @Nullable [] parseElement(String text, int start, int end) {
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
					// Extensions are rare, so the set is only allocated once one appears.
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
				return (forValue >= 0) ? parseNode(text, forValue, forEnd) : null;
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

	/** @return the bit of a parameter that RFC 7239 defines, or 0 for an extension */
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
	private static byte @Nullable [] parseNode(String text, int start, int end) {
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

}
