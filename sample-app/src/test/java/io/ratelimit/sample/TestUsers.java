package io.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.NoOpPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The users of tests that replace the sample's {@code UserDetailsService} (with
 * {@code @TestBean}): {@code admin} with the sample's shipped password and role, and
 * {@code viewer}, authenticated but without the {@code ADMIN} role.
 * <p>
 * Passwords are stored without hashing and {@link CheapHashing} makes the decoy hash of
 * unknown users cheap: the sample's bcrypt costs about 0.1 s per HTTP Basic attempt,
 * which thousands of fuzzed attempts cannot afford. What is checked (who is refused, and
 * with which status) does not depend on the hash.
 */
final class TestUsers {

	static final String VIEWER = "viewer";

	static final String VIEWER_PASSWORD = "viewer-password-7d1f";

	private TestUsers() {
	}

	/** The shipped {@code sample.admin.password}. */
	static String adminPassword() {
		try {
			return PropertiesLoaderUtils.loadProperties(new ClassPathResource("application.properties"))
				.getProperty("sample.admin.password");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static UserDetailsService adminAndViewer() {
		return new InMemoryUserDetailsManager(
				User.withUsername("admin").password("{noop}" + adminPassword()).roles("ADMIN").build(),
				User.withUsername(VIEWER).password("{noop}" + VIEWER_PASSWORD).roles("VIEWER").build());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class CheapHashing {

		@Bean
		PasswordEncoder testPasswordEncoder() {
			return new DelegatingPasswordEncoder("bcrypt",
					Map.of("bcrypt", new BCryptPasswordEncoder(4), "noop", NoOpPasswordEncoder.getInstance()));
		}

	}

}
