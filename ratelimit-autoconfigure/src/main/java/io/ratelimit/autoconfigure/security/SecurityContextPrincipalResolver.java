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
 * Only an authenticated, non-anonymous authentication counts. The tenant and the plan come
 * from the configured claims when the principal is a JWT.
 */
public class SecurityContextPrincipalResolver implements PrincipalResolver {

	private static final boolean JWT_PRESENT = ClassUtils.isPresent("org.springframework.security.oauth2.jwt.Jwt",
			SecurityContextPrincipalResolver.class.getClassLoader());

	private final String tenantClaim;

	private final String planClaim;

	public SecurityContextPrincipalResolver(String tenantClaim) {
		this(tenantClaim, "plan");
	}

	public SecurityContextPrincipalResolver(String tenantClaim, String planClaim) {
		this.tenantClaim = tenantClaim;
		this.planClaim = planClaim;
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
		return new AuthenticatedPrincipal(name, claim(authentication, this.tenantClaim),
				claim(authentication, this.planClaim));
	}

	private static @Nullable String claim(Authentication authentication, String name) {
		if (JWT_PRESENT && authentication.getPrincipal() instanceof org.springframework.security.oauth2.jwt.Jwt jwt) {
			return JwtDecoderTokenVerifier.claim(jwt, name);
		}
		return null;
	}

}
