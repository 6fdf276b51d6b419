package io.ratelimit.core.policy;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What one request costs a limit: the endpoint's configured weight in points, or one
 * request whatever the endpoint. "900 points a minute, a read 1 and a write 5" counts
 * points; "5,000 requests an hour" counts requests. A limit that counts requests
 * {@linkplain #IN_FLIGHT in flight} has no window: "at most 10 requests in progress".
 */
public enum LimitUnit {

	/** The endpoint's weight: 1 unless configured otherwise. What every limit counted before. */
	POINTS,

	/** One per request, whatever the endpoint's weight. */
	REQUESTS,

	/**
	 * One permit per request while it is in progress, whatever the endpoint's weight: the
	 * limit is the most requests in progress at once, taken before the handler runs and
	 * given back when the response completes. No window, no burst.
	 */
	IN_FLIGHT;

	/**
	 * Parses the {@code counts} column of a policy row.
	 * @param text the column value, case-insensitive; {@code null} or blank means points
	 * @return the unit, or {@code null} if the text names none
	 */
	static @Nullable LimitUnit parse(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return POINTS;
		}
		return switch (text.strip().toUpperCase(Locale.ROOT)) {
			case "POINTS" -> POINTS;
			case "REQUESTS" -> REQUESTS;
			case "IN_FLIGHT" -> IN_FLIGHT;
			default -> null;
		};
	}

	/**
	 * Returns what a request costs in this unit.
	 * @param weight the endpoint's weight
	 * @return the weight for points, 1 for requests and for requests in flight
	 */
	public int cost(int weight) {
		return (this == POINTS) ? weight : 1;
	}

}
