package io.ratelimit.core.policy;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What a policy does with a request over its limit.
 */
public enum PolicyMode {

	/** Reject it with 429. */
	ENFORCE,

	/** Let it pass, but count and log that it would have been rejected: for trying limits out. */
	SHADOW,

	/** Apply no limit at all. Only an explicit policy row can say this. */
	OFF;

	/**
	 * Parses the mode column of a policy row.
	 * @param text the column value, case-insensitive; {@code null} or blank means enforce
	 * @return the mode, or {@code null} if the text names no mode
	 */
	static @Nullable PolicyMode parse(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return ENFORCE;
		}
		return switch (text.strip().toUpperCase(Locale.ROOT)) {
			case "ENFORCE" -> ENFORCE;
			case "SHADOW" -> SHADOW;
			case "OFF" -> OFF;
			default -> null;
		};
	}

}
