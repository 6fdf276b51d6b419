package io.ratelimit.core.identity;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A principal the application has authenticated itself, by whatever mechanism (session,
 * opaque token, basic authentication).
 *
 * @param name the stable principal name
 * @param tenant the tenant of the principal, {@code null} if none is known
 */
public record AuthenticatedPrincipal(String name, @Nullable String tenant) {

	public AuthenticatedPrincipal {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("name must not be empty");
		}
	}

}
