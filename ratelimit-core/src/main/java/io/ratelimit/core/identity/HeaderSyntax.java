package io.ratelimit.core.identity;

import org.jspecify.annotations.Nullable;

/**
 * The lexical rules that both forwarding header parsers share: HTTP whitespace, tokens and
 * quoted strings (RFC 9110), and the RFC 7239 node pieces that {@code X-Forwarded-For} uses
 * too (bracketed IPv6, ports).
 * <p>
 * Every method works on the range {@code [start, end)} of a string, so that no substring is
 * ever allocated, and reports malformed input by its return value, never by an exception.
 */
final class HeaderSyntax {

	private HeaderSyntax() {
	}

	/** Skip HTTP optional whitespace (SP and HTAB only: other control characters are garbage). */
	static int skipWhitespace(String text, int start, int end) {
		int i = start;
		while (i < end && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
			i++;
		}
		return i;
	}

	/** @return the end of {@code [start, end)} without its trailing optional whitespace */
	static int trimWhitespace(String text, int start, int end) {
		int i = end;
		while (i > start && (text.charAt(i - 1) == ' ' || text.charAt(i - 1) == '\t')) {
			i--;
		}
		return i;
	}

	/** Like {@link String#indexOf(int, int)}, but never reads past {@code end}. */
	static int indexOf(String text, char c, int start, int end) {
		for (int i = start; i < end; i++) {
			if (text.charAt(i) == c) {
				return i;
			}
		}
		return -1;
	}

	/** @return the index after the longest run of RFC 9110 tchar from {@code start} */
	static int endOfToken(String text, int start, int end) {
		int i = start;
		while (i < end && isTokenChar(text.charAt(i))) {
			i++;
		}
		return i;
	}

	/**
	 * @param start the index of the opening quote
	 * @return the index after the closing quote, or -1 if the quoted string is malformed
	 */
	static int endOfQuotedString(String text, int start, int end) {
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

	/**
	 * Parse {@code [v6]} or {@code [v6]:port}.
	 * @param obfuscatedPort whether the port may be RFC 7239's obfuscated {@code _name}
	 * @return the address, or {@code null} if the text is not a bracketed IPv6 node
	 */
	static byte @Nullable [] parseBracketedIpv6(String text, int start, int end, boolean obfuscatedPort) {
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

	/** RFC 7239 node-port: {@code 1*5DIGIT}, or {@code "_" 1*(ALPHA / DIGIT / "." / "_" / "-")}. */
	static boolean isPort(String text, int start, int end, boolean obfuscatedAllowed) {
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

	/** RFC 9110 tchar. */
	private static boolean isTokenChar(char c) {
		return isAlphaOrDigit(c) || (c < 0x80 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
	}

	/** RFC 9110 qdtext: HTAB, SP, visible ASCII except quote and backslash, obs-text. */
	private static boolean isQuotedTextChar(char c) {
		return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e)
				|| (c >= 0x80 && c <= 0xff);
	}

	/** RFC 9110 quoted-pair: the character after the backslash. */
	private static boolean isQuotedPairChar(char c) {
		return c == '\t' || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff);
	}

	/** ASCII only: {@link Character#isLetterOrDigit(char)} would accept any script. */
	private static boolean isAlphaOrDigit(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
	}

}
