package io.ratelimit.core.identity;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A principal the application has authenticated itself, by whatever mechanism (session,
 * opaque token, basic authentication).
 *
 * @param name the stable principal name
 * @param tenant the tenant of the principal, {@code null} if none is known
 * @param plan the plan the principal's credential names, {@code null} if none is known
 */
public record AuthenticatedPrincipal(String name, @Nullable String tenant, @Nullable String plan) {

	public AuthenticatedPrincipal {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("name must not be empty");
		}
	}

	/**
	 * Creates a principal whose credential names no plan.
	 * @param name the stable principal name
	 * @param tenant the tenant of the principal, {@code null} if none is known
	 */
	public AuthenticatedPrincipal(String name, @Nullable String tenant) {
		this(name, tenant, null);
	}

}
