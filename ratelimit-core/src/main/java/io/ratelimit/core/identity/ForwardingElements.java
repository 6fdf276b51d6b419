package io.ratelimit.core.identity;

import org.jspecify.annotations.Nullable;

/**
 * The elements of one forwarding header, read right to left: nearest proxy first, because
 * only the values that trusted proxies appended are facts.
 * <p>
 * The lines of the header count as one list joined by {@code ","}. Elements that are empty
 * after trimming do not count, and at most {@code maxElements} elements are read, counted
 * from the right. Each element's node is parsed only when the walk reaches it, so the walk
 * does no parsing past where it stops.
 * <p>
 * A cursor is for one request and is not thread-safe. Usage:
 * <pre>{@code
 * while (elements.advance()) {
 *     byte[] address = elements.address(); // null: not a valid node
 * }
 * }</pre>
 */
sealed interface ForwardingElements permits XForwardedForElements, ForwardedElements {

	/**
	 * Move to the next element to the left.
	 * @return {@code false} if no element is left or {@code maxElements} have been read
	 */
	boolean advance();

	/**
	 * Parse the node of the current element. Call only after {@link #advance()} returned
	 * {@code true}.
	 * @return the address, or {@code null} if the element is not a valid node of its header
	 */
	byte @Nullable [] address();

}
