package io.ratelimit.client;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What one response told the caller: its status, the server's {@code Retry-After} and its
 * {@code RateLimit} fields. A strategy adapts to it.
 *
 * @param status the HTTP status, or {@link #NO_RESPONSE} when the exchange failed
 * @param retryAfterMillis the server's {@code Retry-After} in milliseconds from the
 * response, or -1 when absent or malformed
 * @param fields the {@code RateLimit} fields, or {@code null} when the server sent none
 */
public record Feedback(int status, long retryAfterMillis, @Nullable RateLimitFields fields) {

	/** The status of an exchange that produced no response (an I/O error, a timeout). */
	public static final int NO_RESPONSE = 0;

	/** The status a server refuses an over-limit request with. */
	public static final int TOO_MANY_REQUESTS = 429;

	private static final long MAXIMUM_RETRY_AFTER_SECONDS = 86_400;

	/**
	 * Returns the feedback of an exchange that produced no response.
	 * @return feedback with status {@link #NO_RESPONSE}
	 */
	public static Feedback noResponse() {
		return new Feedback(NO_RESPONSE, -1, null);
	}

	/**
	 * Reads the feedback of a response.
	 * @param status the HTTP status
	 * @param headers the first value of a response header by name, or {@code null}
	 * @param nowMillis the wall-clock time, for a {@code Retry-After} given as a date
	 * @return the feedback
	 */
	public static Feedback of(int status, Function<String, @Nullable String> headers, long nowMillis) {
		return new Feedback(status, retryAfterMillis(headers.apply("Retry-After"), nowMillis),
				RateLimitFields.parse(headers.apply("RateLimit"), headers.apply("RateLimit-Policy")));
	}

	/**
	 * Returns whether the server refused the request for its rate.
	 * @return whether the status is 429
	 */
	public boolean isRefused() {
		return this.status == TOO_MANY_REQUESTS;
	}

	/**
	 * Returns whether the exchange produced a response.
	 * @return whether the status is not {@link #NO_RESPONSE}
	 */
	public boolean hasResponse() {
		return this.status != NO_RESPONSE;
	}

	/**
	 * Reads {@code Retry-After} as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); anything
	 * else, or more than a day, is ignored rather than obeyed.
	 */
	static long retryAfterMillis(@Nullable String value, long nowMillis) {
		if (value == null || value.isBlank()) {
			return -1;
		}
		String text = value.trim();
		if (text.chars().allMatch(Character::isDigit)) {
			if (text.length() > 6) {
				return -1;
			}
			long seconds = Long.parseLong(text);
			return (seconds <= MAXIMUM_RETRY_AFTER_SECONDS) ? seconds * 1000 : -1;
		}
		try {
			long millis = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli()
					- nowMillis;
			return (millis <= MAXIMUM_RETRY_AFTER_SECONDS * 1000) ? Math.max(0, millis) : -1;
		}
		catch (DateTimeParseException ex) {
			return -1;
		}
	}

}
