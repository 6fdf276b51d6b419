package io.ratelimit.core.endpoint;

/**
 * Turns a Spring style path pattern into a template path. Variables collapse to {@code *}
 * regardless of their names or regular expressions, so the template names the route, not
 * the spelling of its mapping.
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
				else {
					path.append(c);
				}
			}
		}
		return path.toString();
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
