package io.ratelimit.core.identity;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link TokenVerifier} vouches for: the subject, tenant and plan of a token whose
 * signature and expiry it checked. Holds no part of the token itself.
 *
 * @param subject the token subject, the principal id
 * @param tenant the tenant claim, {@code null} if the token has none
 * @param expiresAt when the token expires, {@code null} if it does not say
 * @param plan the plan claim, {@code null} if the token has none
 */
public record VerifiedToken(String subject, @Nullable String tenant, @Nullable Instant expiresAt,
		@Nullable String plan) {

	public VerifiedToken {
		Objects.requireNonNull(subject, "subject must not be null");
		if (subject.isEmpty()) {
			throw new IllegalArgumentException("subject must not be empty");
		}
	}

	/**
	 * Creates what a token without a plan claim vouches for.
	 * @param subject the token subject, the principal id
	 * @param tenant the tenant claim, {@code null} if the token has none
	 * @param expiresAt when the token expires, {@code null} if it does not say
	 */
	public VerifiedToken(String subject, @Nullable String tenant, @Nullable Instant expiresAt) {
		this(subject, tenant, expiresAt, null);
	}

}
