package io.ratelimit.core.endpoint;

import java.nio.charset.StandardCharsets;

/**
 * Turns a Spring style path pattern into a template path. Variables collapse to {@code *}
 * regardless of their names or regular expressions, so the template names the route, not
 * the spelling of its mapping.
 * <p>
 * Spring accepts literal characters that a template cannot hold ({@code é}, a space,
 * {@code |}, {@code [}, {@code %}); they are written as upper-case percent-escapes of their
 * UTF-8 bytes, as in a request URI, so every route has a template that a policy row can
 * name: {@code /api/café} is {@code /api/caf%C3%A9}.
 */
final class PatternConversion {

	private PatternConversion() {
	}

	/**
	 * Converts {@code /api/users/{id}} to {@code /api/users/*}, {@code /files/{*rest}} and
	 * {@code /files/**} to {@code /files/**}, {@code /img/{name}.{ext}} to
	 * {@code /img/*.*}, and the single-character wildcard {@code ?} to {@code *}.
	 */
	static String toTemplatePath(String pattern) {
		if (pattern.isEmpty()) {
			return "/";
		}
		StringBuilder path = new StringBuilder(pattern.length());
		if (pattern.charAt(0) != '/') {
			path.append('/');
		}
		int segmentStart = path.length();
		int depth = 0;
		for (int i = 0; i < pattern.length(); i++) {
			char c = pattern.charAt(i);
			if (c == '{') {
				if (depth++ == 0) {
					boolean captureRest = i + 1 < pattern.length() && pattern.charAt(i + 1) == '*';
					appendWildcard(path, captureRest);
				}
			}
			else if (c == '}') {
				depth = Math.max(0, depth - 1);
			}
			else if (depth == 0) {
				if (c == '/') {
					segmentStart = path.length() + 1;
					path.append(c);
				}
				else if (c == '*' || c == '?') {
					boolean catchAll = c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*'
							&& path.length() == segmentStart;
					appendWildcard(path, catchAll);
					if (catchAll) {
						i++;
					}
				}
				else if (TemplateSyntax.isPathCharacter(c)) {
					path.append(c);
				}
				else {
					i = appendEscaped(path, pattern, i);
				}
			}
		}
		return path.toString();
	}

	/**
	 * Appends the percent-escaped UTF-8 bytes of the code point at {@code i}.
	 * @return the index of the code point's last char
	 */
	private static int appendEscaped(StringBuilder path, String pattern, int i) {
		int codePoint = pattern.codePointAt(i);
		for (byte b : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8)) {
			path.append('%').append(TemplateSyntax.HEX_DIGITS.charAt((b >> 4) & 0xF))
				.append(TemplateSyntax.HEX_DIGITS.charAt(b & 0xF));
		}
		return i + Character.charCount(codePoint) - 1;
	}

	/**
	 * Appends {@code *}, or {@code **} for a catch-all, without ever writing a run of
	 * wildcards that would read as a catch-all by accident ({@code {a}{b}} is one {@code *}).
	 */
	private static void appendWildcard(StringBuilder path, boolean catchAll) {
		int length = path.length();
		if (catchAll) {
			path.append("**");
		}
		else if (length == 0 || path.charAt(length - 1) != '*') {
			path.append('*');
		}
	}

}
