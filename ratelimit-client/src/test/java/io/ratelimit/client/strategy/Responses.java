package io.ratelimit.client.strategy;

import java.util.Map;

import io.ratelimit.client.Feedback;

/** Responses as this project's server writes them, for policy {@code q} per {@code w} seconds. */
final class Responses {

	static final long SECOND = 1_000_000_000L;

	private Responses() {
	}

	static Feedback ok() {
		return Feedback.of(200, (name) -> null, 0);
	}

	static Feedback refused() {
		return Feedback.of(429, (name) -> null, 0);
	}

	static Feedback ok(long remaining, long quota, long window) {
		return Feedback.of(200, Map.of("RateLimit", "\"default\";r=" + remaining + ";t=1", "RateLimit-Policy",
				"\"default\";q=" + quota + ";w=" + window)::get, 0);
	}

	static Feedback refused(long retryAfter, long quota, long window) {
		return Feedback.of(429, Map.of("Retry-After", Long.toString(retryAfter), "RateLimit",
				"\"default\";r=0;t=" + retryAfter, "RateLimit-Policy", "\"default\";q=" + quota + ";w=" + window)::get,
				0);
	}

}
