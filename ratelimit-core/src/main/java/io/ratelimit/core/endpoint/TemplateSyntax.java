package io.ratelimit.core.endpoint;

import org.jspecify.annotations.Nullable;

/**
 * The grammar of endpoint templates, as problems rather than exceptions so that both
 * construction and policy validation can report them.
 */
final class TemplateSyntax {

	private static final int MAX_METHOD_LENGTH = 20;

	private static final int MAX_PATH_LENGTH = 1000;

	/** The digits of percent-escapes, which templates write in upper case only. */
	static final String HEX_DIGITS = "0123456789ABCDEF";

	private TemplateSyntax() {
	}

	/**
	 * @return why the method is not valid, or {@code null} if it is
	 */
	static @Nullable String methodProblem(String method) {
		if (method.isEmpty() || method.length() > MAX_METHOD_LENGTH) {
			return "the method must be 1 to " + MAX_METHOD_LENGTH + " upper-case letters";
		}
		for (int i = 0; i < method.length(); i++) {
			char c = method.charAt(i);
			if (c < 'A' || c > 'Z') {
				return "the method must be upper-case letters only";
			}
		}
		return null;
	}

	/**
	 * @return why the path is not a valid template path, or {@code null} if it is
	 */
	static @Nullable String pathProblem(String path) {
		if (path.isEmpty() || path.charAt(0) != '/') {
			return "the path must start with '/'";
		}
		if (path.length() > MAX_PATH_LENGTH) {
			return "the path must not be longer than " + MAX_PATH_LENGTH + " characters";
		}
		int segmentStart = 1;
		for (int i = 1; i <= path.length(); i++) {
			if (i == path.length() || path.charAt(i) == '/') {
				String problem = segmentProblem(path, segmentStart, i);
				if (problem != null) {
					return problem;
				}
				segmentStart = i + 1;
			}
		}
		return null;
	}

	private static @Nullable String segmentProblem(String path, int start, int end) {
		boolean catchAll = (end - start >= 2) && path.charAt(start) == '*' && path.charAt(start + 1) == '*'
				&& (end - start == 2 || path.charAt(start + 2) == ';');
		// A catch-all may carry path parameters, as a versioned route's does: /files/**;version=2.
		for (int i = catchAll ? start + 2 : start; i < end; i++) {
			char c = path.charAt(i);
			if (c == '%') {
				String problem = escapeProblem(path, i, end);
				if (problem != null) {
					return problem;
				}
				i += 2;
				continue;
			}
			if (!isPathCharacter(c)) {
				String hint = (c == '{' || c == '}') ? "; variables are written '*'" : "";
				return "the path must not contain '" + printable(String.valueOf(c)) + "'" + hint;
			}
			if (c == '*' && i + 1 < end && path.charAt(i + 1) == '*') {
				return "'**' must be a whole path segment";
			}
		}
		return null;
	}

	/**
	 * A percent-escape stands for a character the template cannot hold, so that it has one
	 * spelling only: two upper-case hex digits, and never a character allowed as it is.
	 */
	private static @Nullable String escapeProblem(String path, int percent, int end) {
		int high = (percent + 2 < end) ? HEX_DIGITS.indexOf(path.charAt(percent + 1)) : -1;
		int low = (high >= 0) ? HEX_DIGITS.indexOf(path.charAt(percent + 2)) : -1;
		if (low < 0) {
			return "'%' must start a percent-escape of two upper-case hex digits";
		}
		char escaped = (char) (high * 16 + low);
		if (isPathCharacter(escaped)) {
			return "'" + path.substring(percent, percent + 3) + "' must be written as '" + escaped + "'";
		}
		return null;
	}

	/**
	 * RFC 3986 pchar (unreserved, sub-delims, ':' and '@') plus '*' for variables. Any other
	 * character of a route is percent-escaped ({@link PatternConversion}): templates are
	 * matched paths, never raw request text.
	 */
	static boolean isPathCharacter(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "-._~!$&'()*+,;=:@".indexOf(c) >= 0;
	}

	/**
	 * Returns text safe to put in a message: control and non-ASCII characters escaped, so
	 * a malformed row cannot forge log lines.
	 */
	static String printable(String text) {
		StringBuilder printable = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c >= 0x20 && c < 0x7f) {
				printable.append(c);
			}
			else {
				printable.append(String.format("\\u%04x", (int) c));
			}
		}
		return printable.toString();
	}

}
