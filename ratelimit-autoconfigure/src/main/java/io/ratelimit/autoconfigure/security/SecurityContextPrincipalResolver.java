package io.ratelimit.autoconfigure.security;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.identity.AuthenticatedPrincipal;
import io.ratelimit.core.identity.PrincipalResolver;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * The principal Spring Security authenticated, for a limiter placed after its filter
 * chain: sessions, opaque tokens and basic authentication all give per-principal limits.
 * Only an authenticated, non-anonymous authentication counts. The tenant comes from the
 * configured claim when the principal is a JWT.
 */
public class SecurityContextPrincipalResolver implements PrincipalResolver {

	private static final boolean JWT_PRESENT = ClassUtils.isPresent("org.springframework.security.oauth2.jwt.Jwt",
			SecurityContextPrincipalResolver.class.getClassLoader());

	private final String tenantClaim;

	public SecurityContextPrincipalResolver(String tenantClaim) {
		this.tenantClaim = tenantClaim;
	}

	@Override
	public @Nullable AuthenticatedPrincipal resolve(RateLimitRequest request) {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return null;
		}
		String name = authentication.getName();
		if (name == null || name.isEmpty()) {
			return null;
		}
		return new AuthenticatedPrincipal(name, tenantOf(authentication));
	}

	private @Nullable String tenantOf(Authentication authentication) {
		if (JWT_PRESENT && authentication.getPrincipal() instanceof org.springframework.security.oauth2.jwt.Jwt jwt) {
			return JwtDecoderTokenVerifier.tenantOf(jwt, this.tenantClaim);
		}
		return null;
	}

}
