package io.ratelimit.core.policy;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Where a policy's buckets live.
 */
public enum PolicyScope {

	/** In each replica: k replicas admit up to k times the limit, at no network cost. */
	LOCAL,

	/** Shared by all replicas (in Redis): the limit written is the limit enforced. */
	GLOBAL,

	/**
	 * Shared by all replicas (in Redis), each deciding from tokens it leased in advance: no
	 * Redis round trip inside a request while its key has a lease; never more than the
	 * limit, and at most the replicas' unused leases less.
	 */
	GLOBAL_BATCHED;

	/**
	 * Parses the scope column of a policy row.
	 * @param text the column value, case-insensitive; {@code null} or blank means local
	 * @return the scope, or {@code null} if the text names no scope
	 */
	static @Nullable PolicyScope parse(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return LOCAL;
		}
		return switch (text.strip().toUpperCase(Locale.ROOT)) {
			case "LOCAL" -> LOCAL;
			case "GLOBAL" -> GLOBAL;
			case "GLOBAL_BATCHED" -> GLOBAL_BATCHED;
			default -> null;
		};
	}

}
