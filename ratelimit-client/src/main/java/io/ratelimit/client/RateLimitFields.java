package io.ratelimit.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What a server's {@code RateLimit} and {@code RateLimit-Policy} fields (IETF
 * draft-ietf-httpapi-ratelimit-headers) say about the quota a request was charged to. When
 * several policies are listed (layered limits: per second on the endpoint, per hour across
 * the API, points per minute), the tightest is kept: the one whose remaining quota allows
 * the lowest rate, its sustained rate {@code q / w} times the cube of its remaining share
 * {@code r / q}, as the header-aware pacing steers by. Of items whose policy is unknown, the
 * one with the least remaining. Items of a policy whose quota unit ({@code qu}) is not
 * requests, such as a limit of concurrent requests, are passed over: waiting does not
 * change them.
 *
 * @param remaining the quota units left ({@code r})
 * @param resetSeconds the seconds until more quota is available ({@code t}), 0 when full
 * @param quota the policy's quota ({@code q}), or -1 when no policy field names it
 * @param windowSeconds the policy's window in seconds ({@code w}), or -1 when unknown
 */
public record RateLimitFields(long remaining, long resetSeconds, long quota, long windowSeconds) {

	/**
	 * Returns the sustained rate the policy allows, {@code q / w} per second.
	 * @return the rate in requests per second, or 0 when the policy is unknown
	 */
	public double ratePerSecond() {
		return (this.quota > 0 && this.windowSeconds > 0) ? (double) this.quota / this.windowSeconds : 0;
	}

	/**
	 * Whether this item will hold a caller back more than another: a lower rate allowed by
	 * what is left when both policies are known, else less left, else a longer reset.
	 */
	private boolean isTighterThan(RateLimitFields other) {
		if (ratePerSecond() > 0 && other.ratePerSecond() > 0) {
			double allowed = allowedRate();
			double otherAllowed = other.allowedRate();
			if (allowed != otherAllowed) {
				return allowed < otherAllowed;
			}
		}
		else if (this.remaining != other.remaining) {
			return this.remaining < other.remaining;
		}
		return this.resetSeconds > other.resetSeconds;
	}

	private double allowedRate() {
		double share = (double) this.remaining / this.quota;
		return ratePerSecond() * share * share * share;
	}

	/**
	 * Reads the fields of one response. Malformed items are skipped, never guessed at: a
	 * response whose {@code RateLimit} field has no well-formed item with {@code r} gives
	 * {@code null}, and the strategy falls back to what it does without fields.
	 * @param rateLimit the {@code RateLimit} field value, or {@code null}
	 * @param rateLimitPolicy the {@code RateLimit-Policy} field value, or {@code null}
	 * @return the fields, or {@code null} when there is no usable {@code RateLimit} item
	 */
	public static @Nullable RateLimitFields parse(@Nullable String rateLimit, @Nullable String rateLimitPolicy) {
		if (rateLimit == null) {
			return null;
		}
		List<Item> policies = (rateLimitPolicy != null) ? items(rateLimitPolicy) : List.of();
		RateLimitFields tightest = null;
		for (Item item : items(rateLimit)) {
			long remaining = item.parameter("r");
			if (remaining < 0) {
				continue;
			}
			long reset = Math.max(0, item.parameter("t"));
			Item policy = policies.stream().filter((candidate) -> candidate.name.equals(item.name)).findFirst().orElse(null);
			if (policy != null && !policy.countsRequests()) {
				// A limit of requests in progress, say: pacing cannot free it, finishing can.
				continue;
			}
			long quota = (policy != null) ? policy.parameter("q") : -1;
			long window = (policy != null) ? policy.parameter("w") : -1;
			RateLimitFields fields = new RateLimitFields(remaining, reset, quota, window);
			if (tightest == null || fields.isTighterThan(tightest)) {
				tightest = fields;
			}
		}
		return tightest;
	}

	/**
	 * Splits a Structured Field List (RFC 9651) of items named by a string or a token, with
	 * integer parameters, into items. Only what these two fields use is read.
	 */
	private static List<Item> items(String field) {
		List<Item> items = new ArrayList<>();
		int i = 0;
		int length = field.length();
		while (i < length) {
			while (i < length && (field.charAt(i) == ' ' || field.charAt(i) == '\t' || field.charAt(i) == ',')) {
				i++;
			}
			if (i >= length) {
				break;
			}
			int end = itemEnd(field, i);
			Item item = Item.parse(field.substring(i, end));
			if (item != null) {
				items.add(item);
			}
			i = end + 1;
		}
		return items;
	}

	private static int itemEnd(String field, int start) {
		boolean quoted = false;
		for (int i = start; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c == '\\' && quoted) {
				i++;
			}
			else if (c == '"') {
				quoted = !quoted;
			}
			else if (c == ',' && !quoted) {
				return i;
			}
		}
		return field.length();
	}

	private record Item(String name, List<String[]> parameters) {

		static @Nullable Item parse(String text) {
			String[] parts = text.trim().split(";");
			String name = parts[0].trim();
			if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
				name = name.substring(1, name.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
			}
			if (name.isEmpty()) {
				return null;
			}
			List<String[]> parameters = new ArrayList<>();
			for (int i = 1; i < parts.length; i++) {
				String[] pair = parts[i].trim().split("=", 2);
				parameters.add(pair);
			}
			return new Item(name, parameters);
		}

		/**
		 * Whether the policy counts requests over its window: its quota unit ({@code qu}) is
		 * absent, which means requests, or says so.
		 */
		boolean countsRequests() {
			for (String[] pair : this.parameters) {
				if (Objects.equals(pair[0], "qu")) {
					return pair.length == 2 && (pair[1].equals("\"requests\"") || pair[1].equals("\"request\""));
				}
			}
			return true;
		}

		/** Returns a non-negative integer parameter, or -1 when absent or not such an integer. */
		long parameter(String key) {
			for (String[] pair : this.parameters) {
				if (Objects.equals(pair[0], key) && pair.length == 2) {
					String value = pair[1];
					if (value.isEmpty() || value.length() > 15 || !value.chars().allMatch(Character::isDigit)) {
						return -1;
					}
					return Long.parseLong(value);
				}
			}
			return -1;
		}

	}

}
