package io.ratelimit.core.identity;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Strict, allocation-light parsing and formatting of IP address literals.
 * <p>
 * IPv4 is exactly four decimal octets 0-255 without leading zeros; IPv6 is the RFC 4291 text
 * form without a zone id or brackets. An IPv4-mapped IPv6 address ({@code ::ffff:0:0/96}) is
 * returned as the 4-byte IPv4 address so that a client has one identity whichever way a proxy
 * spells it. Nothing here ever resolves a host name: {@code InetAddress.getByName} accepts
 * {@code "2130706433"} and {@code "1.2.3"} and performs DNS lookups on anything else, which
 * an attacker controlling a forwarding header must never be able to trigger.
 */
final class IpAddresses {

	/** {@code ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255}; anything longer is not an address. */
	private static final int MAX_TEXT_LENGTH = 45;

	private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();

	private IpAddresses() {
	}

	/**
	 * Parse an IP address literal.
	 * @param text the text to parse
	 * @return the 4 or 16 address bytes, or {@code null} if the text is not an address
	 */
	static byte @Nullable [] parse(String text) {
		return parse(text, 0, text.length());
	}

	/**
	 * Parse the IP address literal at {@code text[start, end)}, so that callers splitting a
	 * header need not allocate a substring per element.
	 * @param text the text holding the literal
	 * @param start the index of the first character
	 * @param end the index after the last character
	 * @return the 4 or 16 address bytes, or {@code null} if the range is not an address
	 */
	static byte @Nullable [] parse(String text, int start, int end) {
		if (end - start <= 0 || end - start > MAX_TEXT_LENGTH) {
			return null;
		}
		for (int i = start; i < end; i++) {
			if (text.charAt(i) == ':') {
				return parseIpv6(text, start, end);
			}
		}
		byte[] address = new byte[4];
		return parseIpv4(text, start, end, address, 0) ? address : null;
	}

	/**
	 * Returns whether a text is an IPv4 address literal in dotted-decimal form, without
	 * building its bytes.
	 * @param text the text
	 * @return whether {@link #parse(String)} would return four bytes without a colon in sight
	 */
	static boolean isIpv4(String text) {
		return text.length() <= MAX_TEXT_LENGTH && parseIpv4(text, 0, text.length(), null, 0);
	}

	private static boolean parseIpv4(String text, int start, int end, byte @Nullable [] out, int offset) {
		int octets = 0;
		int i = start;
		while (octets < 4) {
			int digitsStart = i;
			int value = 0;
			while (i < end && i - digitsStart < 3 && isDigit(text.charAt(i))) {
				value = value * 10 + (text.charAt(i) - '0');
				i++;
			}
			int digits = i - digitsStart;
			// "01" is octal to inet_aton and decimal to others: refuse to guess.
			if (digits == 0 || value > 255 || (digits > 1 && text.charAt(digitsStart) == '0')) {
				return false;
			}
			if (out != null) {
				out[offset + octets] = (byte) value;
			}
			octets++;
			if (octets < 4) {
				if (i >= end || text.charAt(i) != '.') {
					return false;
				}
				i++;
			}
		}
		return i == end;
	}

	private static byte @Nullable [] parseIpv6(String text, int start, int end) {
		byte[] address = new byte[16];
		int length = 0;
		int gap = -1;
		int i = start;
		if (text.charAt(i) == ':') {
			if (end - i < 2 || text.charAt(i + 1) != ':') {
				return null;
			}
			gap = 0;
			i += 2;
		}
		while (i < end) {
			int groupStart = i;
			int value = 0;
			int digit;
			while (i < end && i - groupStart < 5 && (digit = hexValue(text.charAt(i))) >= 0) {
				value = (value << 4) | digit;
				i++;
			}
			if (i < end && text.charAt(i) == '.') {
				// An embedded IPv4 address is only allowed as the last 32 bits.
				if (length > 12 || !parseIpv4(text, groupStart, end, address, length)) {
					return null;
				}
				length += 4;
				break;
			}
			int digits = i - groupStart;
			if (digits == 0 || digits > 4 || length == 16) {
				return null;
			}
			address[length++] = (byte) (value >>> 8);
			address[length++] = (byte) value;
			if (i == end) {
				break;
			}
			if (text.charAt(i++) != ':' || i == end) {
				return null;
			}
			if (text.charAt(i) == ':') {
				if (gap >= 0) {
					return null;
				}
				gap = length;
				i++;
			}
		}
		if (gap < 0) {
			return (length == 16) ? toIpv4IfMapped(address) : null;
		}
		// "::" stands for at least one group of zeros.
		if (length == 16) {
			return null;
		}
		int tail = length - gap;
		System.arraycopy(address, gap, address, 16 - tail, tail);
		Arrays.fill(address, gap, 16 - tail, (byte) 0);
		return toIpv4IfMapped(address);
	}

	private static byte[] toIpv4IfMapped(byte[] address) {
		if (!isIpv4Mapped(address)) {
			return address;
		}
		return new byte[] { address[12], address[13], address[14], address[15] };
	}

	private static boolean isIpv4Mapped(byte[] address) {
		for (int i = 0; i < 10; i++) {
			if (address[i] != 0) {
				return false;
			}
		}
		return address[10] == (byte) 0xff && address[11] == (byte) 0xff;
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	/** Unlike {@link Character#digit(char, int)}, accepts ASCII only (no fullwidth digits). */
	private static int hexValue(char c) {
		if (c >= '0' && c <= '9') {
			return c - '0';
		}
		if (c >= 'a' && c <= 'f') {
			return c - 'a' + 10;
		}
		if (c >= 'A' && c <= 'F') {
			return c - 'A' + 10;
		}
		return -1;
	}

	/**
	 * Format an address: IPv4 as dotted decimal, IPv6 in the RFC 5952 canonical form
	 * (lowercase, no leading zeros, the longest run of two or more zero groups compressed).
	 * @param address 4 or 16 address bytes
	 * @return the canonical text
	 */
	static String format(byte[] address) {
		checkLength(address);
		StringBuilder text = new StringBuilder(39);
		if (address.length == 4) {
			appendIpv4(text, address, 0);
			return text.toString();
		}
		if (isIpv4Mapped(address)) {
			// RFC 5952 section 5 recommends the mixed notation for this well-known prefix.
			text.append("::ffff:");
			appendIpv4(text, address, 12);
			return text.toString();
		}
		int bestStart = -1;
		int bestLength = 1;
		for (int group = 0; group < 8;) {
			int runEnd = group;
			while (runEnd < 8 && address[2 * runEnd] == 0 && address[2 * runEnd + 1] == 0) {
				runEnd++;
			}
			if (runEnd - group > bestLength) {
				bestStart = group;
				bestLength = runEnd - group;
			}
			group = Math.max(runEnd, group + 1);
		}
		for (int group = 0; group < 8; group++) {
			if (group == bestStart) {
				text.append("::");
				group += bestLength - 1;
				continue;
			}
			if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
				text.append(':');
			}
			appendHexGroup(text, ((address[2 * group] & 0xff) << 8) | (address[2 * group + 1] & 0xff));
		}
		return text.toString();
	}

	private static void appendIpv4(StringBuilder text, byte[] address, int offset) {
		for (int i = 0; i < 4; i++) {
			if (i > 0) {
				text.append('.');
			}
			text.append(address[offset + i] & 0xff);
		}
	}

	private static void appendHexGroup(StringBuilder text, int group) {
		boolean started = false;
		for (int shift = 12; shift >= 0; shift -= 4) {
			int nibble = (group >>> shift) & 0xf;
			if (started || nibble != 0 || shift == 0) {
				text.append(HEX_DIGITS[nibble]);
				started = true;
			}
		}
	}

	/**
	 * Return a copy of the address with every bit after the prefix cleared.
	 * @param address 4 or 16 address bytes
	 * @param prefixLength the number of leading bits to keep
	 * @return the network address of the prefix
	 */
	static byte[] mask(byte[] address, int prefixLength) {
		checkLength(address);
		int bits = address.length * 8;
		if (prefixLength < 0 || prefixLength > bits) {
			throw new IllegalArgumentException(
					"prefixLength must be between 0 and " + bits + " but was " + prefixLength);
		}
		byte[] masked = new byte[address.length];
		int fullBytes = prefixLength / 8;
		System.arraycopy(address, 0, masked, 0, fullBytes);
		int remainingBits = prefixLength % 8;
		if (remainingBits != 0) {
			masked[fullBytes] = (byte) (address[fullBytes] & (0xff << (8 - remainingBits)));
		}
		return masked;
	}

	private static void checkLength(byte[] address) {
		if (address.length != 4 && address.length != 16) {
			throw new IllegalArgumentException(
					"address must have 4 or 16 bytes but had " + address.length);
		}
	}

}
