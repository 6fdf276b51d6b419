package io.ratelimit.core.policy;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Which requests share the bucket of a limit, for one identity: those of one endpoint, those
 * of a named group of endpoints, or every request to the API.
 */
public enum LimitTarget {

	/** One bucket per endpoint and identity: the only kind of limit before layered limits. */
	ENDPOINT,

	/** One bucket per identity, charged by every endpoint of a named group. */
	GROUP,

	/** One bucket per identity, charged by every endpoint of the API. */
	API;

	/**
	 * Parses the {@code applies_to} column of a policy row.
	 * @param text the column value, case-insensitive; {@code null} or blank means endpoint
	 * @return the target, or {@code null} if the text names none
	 */
	static @Nullable LimitTarget parse(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return ENDPOINT;
		}
		return switch (text.strip().toUpperCase(Locale.ROOT)) {
			case "ENDPOINT" -> ENDPOINT;
			case "GROUP" -> GROUP;
			case "API" -> API;
			default -> null;
		};
	}

}
