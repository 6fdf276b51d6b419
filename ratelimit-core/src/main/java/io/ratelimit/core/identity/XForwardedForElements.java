package io.ratelimit.core.identity;

import java.util.List;

import org.jspecify.annotations.Nullable;

import static io.ratelimit.core.identity.HeaderSyntax.indexOf;
import static io.ratelimit.core.identity.HeaderSyntax.isPort;
import static io.ratelimit.core.identity.HeaderSyntax.parseBracketedIpv6;
import static io.ratelimit.core.identity.HeaderSyntax.skipWhitespace;
import static io.ratelimit.core.identity.HeaderSyntax.trimWhitespace;

/**
 * The elements of {@code X-Forwarded-For}: a plain comma-separated list whose nodes are
 * {@code v4}, {@code v6}, {@code [v6]}, {@code v4:port} or {@code [v6]:port}.
 * <p>
 * The syntax has no quoting, so a comma always separates two elements. That lets each line be
 * scanned in place from its end, last line first, which is the same as joining the lines with
 * {@code ","} and splitting, without copying the header or splitting what the walk never
 * reaches.
 */
final class XForwardedForElements implements ForwardingElements {

	private final List<String> lines;

	private int remaining;

	/** The index in {@link #lines} of {@link #text}. */
	private int line;

	private String text = "";

	/** The end of the unread part of {@link #text}, or -1 once the line is used up. */
	private int end = -1;

	private int elementStart;

	private int elementEnd;

	XForwardedForElements(List<String> lines, int maxElements) {
		this.lines = lines;
		this.remaining = maxElements;
		this.line = lines.size();
	}

	@Override
	public boolean advance() {
		while (this.remaining > 0) {
			if (this.end < 0) {
				if (this.line == 0) {
					return false;
				}
				this.line--;
				this.text = this.lines.get(this.line);
				this.end = this.text.length();
			}
			int comma = this.text.lastIndexOf(',', this.end - 1);
			int start = skipWhitespace(this.text, comma + 1, this.end);
			int trimmedEnd = trimWhitespace(this.text, start, this.end);
			this.end = comma;
			if (start < trimmedEnd) {
				this.remaining--;
				this.elementStart = start;
				this.elementEnd = trimmedEnd;
				return true;
			}
		}
		return false;
	}

	@Override
	public byte @Nullable [] address() {
		return parseNode(this.text, this.elementStart, this.elementEnd);
	}

	private static byte @Nullable [] parseNode(String text, int start, int end) {
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

}
