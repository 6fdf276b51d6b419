package io.ratelimit.autoconfigure;

import io.ratelimit.autoconfigure.web.BodyIdentifierExtractor;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointTemplate;

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
		return builder;
	}

}
