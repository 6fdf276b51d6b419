package io.ratelimit.autoconfigure;

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
			builder.sensitiveEndpoint(endpoint,
					new BodyIdentifierExtractor(field, (int) maxBody, login.getMaxJsonDepth()));
		}
		RateLimitProperties.Login.Device device = login.getDevice();
		String secret = device.getSecret();
		if (secret != null) {
			try {
				builder.trustedDevices(new DeviceTokens(KeyedHasher.withSecret(secret), device.getLifetime(),
						TimeSource.system()), device.getHeader(), device.getCookieName());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("ratelimit.login.device.*: " + ex.getMessage(), ex);
			}
		}
		return builder;
	}

	/**
	 * Returns which answers of a login endpoint mean success, and how the device tokens
	 * they earn reach the client.
	 * @throws IllegalArgumentException naming the status entry that cannot work
	 */
	static LoginOutcomes outcomes(RateLimitProperties.Login login) {
		LoginOutcomes outcomes = LoginOutcomes.of(login.getSuccessStatuses());
		RateLimitProperties.Login.Device device = login.getDevice();
		if (device.getSecret() == null) {
			return outcomes;
		}
		return switch (device.getTransport()) {
			case COOKIE -> outcomes.withCookie(device.getCookieName(), device.isCookieSecure(),
					device.getCookieSameSite(), device.getCookiePath(), device.getLifetime());
			case HEADER -> outcomes.withHeader(device.getHeader());
		};
	}

}
