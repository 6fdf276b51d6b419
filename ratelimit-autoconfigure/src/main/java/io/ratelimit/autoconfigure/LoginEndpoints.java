package io.ratelimit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.ratelimit.autoconfigure.web.BodyIdentifierExtractor;
import io.ratelimit.autoconfigure.web.LoginOutcomes;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.DeviceTokens;
import io.ratelimit.core.identity.KeyedHasher;

import org.springframework.util.ClassUtils;

/**
 * Turns {@code ratelimit.login.*} into sensitive endpoints of the limiter.
 */
final class LoginEndpoints {

	private static final boolean JACKSON_PRESENT = ClassUtils.isPresent("tools.jackson.core.json.JsonFactory",
			LoginEndpoints.class.getClassLoader());

	private static final String DEFAULT_COOKIE_NAME = "ratelimit_device";

	private static final String HOST_PREFIX = "__Host-";

	private static final String SECURE_PREFIX = "__Secure-";

	private LoginEndpoints() {
	}

	/**
	 * Registers each 'TEMPLATE=FIELD' entry.
	 * @return the builder
	 * @throws IllegalArgumentException naming the entry that cannot work
	 */
	static RateLimiter.Builder register(RateLimitProperties.Login login, RateLimiter.Builder builder) {
		if (login.getEndpoints().isEmpty()) {
			return builder;
		}
		if (!JACKSON_PRESENT) {
			throw new IllegalArgumentException("reading login bodies needs Jackson 3's jackson-core (tools.jackson.core) on the classpath");
		}
		long maxBody = login.getMaxBodySize().toBytes();
		if (maxBody < 1 || maxBody > Integer.MAX_VALUE - 1) {
			throw new IllegalArgumentException("ratelimit.login.max-body-size must be between 1B and 2GB");
		}
		if (login.getMaxJsonDepth() < 1) {
			throw new IllegalArgumentException("ratelimit.login.max-json-depth must be positive");
		}
		entries(login).forEach((endpoint, field) -> builder.sensitiveEndpoint(endpoint, new BodyIdentifierExtractor(
				field, (int) maxBody, login.getMaxJsonDepth(), login.getIdentifierNormalization())));
		RateLimitProperties.Login.Device device = login.getDevice();
		String secret = device.getSecret();
		if (secret != null) {
			try {
				builder.trustedDevices(new DeviceTokens(KeyedHasher.withSecret(secret), device.getLifetime(),
						TimeSource.system()), device.getHeader(), cookieName(device));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("ratelimit.login.device.*: " + ex.getMessage(), ex);
			}
		}
		return builder;
	}

	/**
	 * Returns the configured login templates.
	 * @throws IllegalArgumentException naming the entry that cannot work
	 */
	static Set<EndpointTemplate> templates(RateLimitProperties.Login login) {
		return entries(login).keySet();
	}

	private static Map<EndpointTemplate, String> entries(RateLimitProperties.Login login) {
		Map<EndpointTemplate, String> entries = new LinkedHashMap<>();
		for (String entry : login.getEndpoints()) {
			int equals = entry.lastIndexOf('=');
			String field = (equals < 0) ? "" : entry.substring(equals + 1).strip();
			if (field.isEmpty()) {
				throw new IllegalArgumentException("entry '" + entry + "': expected 'TEMPLATE=FIELD'");
			}
			EndpointTemplate endpoint;
			try {
				endpoint = EndpointTemplate.parse(entry.substring(0, equals).strip());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("entry '" + entry + "': " + ex.getMessage(), ex);
			}
			if (endpoint.isReserved()) {
				throw new IllegalArgumentException("entry '" + entry + "': only real endpoints can be logins");
			}
			entries.put(endpoint, field);
		}
		return entries;
	}

	/**
	 * Returns the device cookie's name: by default one with the {@code __Host-} prefix
	 * wherever the browser accepts it (Secure, Path=/, no Domain), since a sibling subdomain
	 * cannot set such a cookie, so it cannot plant a second one and make the owner's device
	 * count as none during an attack.
	 * @throws IllegalArgumentException for a prefixed name the browser would refuse
	 */
	static String cookieName(RateLimitProperties.Login.Device device) {
		String name = device.getCookieName();
		boolean hostOnly = device.isCookieSecure() && "/".equals(device.getCookiePath());
		if (name == null) {
			return hostOnly ? HOST_PREFIX + DEFAULT_COOKIE_NAME : DEFAULT_COOKIE_NAME;
		}
		if (name.regionMatches(true, 0, HOST_PREFIX, 0, HOST_PREFIX.length()) && !hostOnly) {
			throw new IllegalArgumentException("ratelimit.login.device.cookie-name '" + name
					+ "': a __Host- cookie must be Secure with Path '/' (ratelimit.login.device.cookie-secure, "
					+ "cookie-path), or browsers refuse it");
		}
		if (name.regionMatches(true, 0, SECURE_PREFIX, 0, SECURE_PREFIX.length()) && !device.isCookieSecure()) {
			throw new IllegalArgumentException("ratelimit.login.device.cookie-name '" + name
					+ "': a __Secure- cookie must be Secure (ratelimit.login.device.cookie-secure), or browsers refuse it");
		}
		return name;
	}

	/**
	 * Returns which answers of a login endpoint mean success, and how the device tokens
	 * they earn reach the client.
	 * @throws IllegalArgumentException naming the status entry that cannot work
	 */
	static LoginOutcomes outcomes(RateLimitProperties.Login login) {
		long limit = login.getMaxResponseBuffer().toBytes();
		if (limit < 0 || limit > Integer.MAX_VALUE - 8) {
			throw new IllegalArgumentException("ratelimit.login.max-response-buffer must be between 0B and 2GB");
		}
		LoginOutcomes outcomes = LoginOutcomes.of(login.getSuccessStatuses()).withResponseLimit((int) limit);
		RateLimitProperties.Login.Device device = login.getDevice();
		if (device.getSecret() == null) {
			return outcomes;
		}
		return switch (device.getTransport()) {
			case COOKIE -> outcomes.withCookie(cookieName(device), device.isCookieSecure(),
					device.getCookieSameSite(), device.getCookiePath(), device.getLifetime());
			case HEADER -> outcomes.withHeader(device.getHeader());
		};
	}

}
