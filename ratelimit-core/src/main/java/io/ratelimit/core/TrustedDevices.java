package io.ratelimit.core;

import java.util.List;
import java.util.Objects;

import io.ratelimit.core.identity.DeviceTokens;
import org.jspecify.annotations.Nullable;

/**
 * Where a request carries its device token: a header for clients that keep no cookies,
 * else a cookie. Only a token of the exact length is looked at; the header must appear
 * once, and a cookie named twice counts as none, so nothing a client repeats is guessed at.
 */
final class TrustedDevices {

	private final DeviceTokens tokens;

	private final String header;

	private final String cookiePrefix;

	TrustedDevices(DeviceTokens tokens, String header, String cookie) {
		this.tokens = Objects.requireNonNull(tokens, "tokens must not be null");
		this.header = requireToken(header, "header");
		this.cookiePrefix = requireToken(cookie, "cookie") + "=";
	}

	DeviceTokens tokens() {
		return this.tokens;
	}

	@Nullable String read(RateLimitRequest request) {
		List<String> values = request.headers(this.header);
		if (values.size() == 1) {
			return values.get(0).strip();
		}
		String found = null;
		for (String line : request.headers("Cookie")) {
			for (String pair : line.split(";")) {
				String cookie = pair.strip();
				if (cookie.startsWith(this.cookiePrefix)) {
					if (found != null) {
						return null;
					}
					found = cookie.substring(this.cookiePrefix.length());
				}
			}
		}
		return found;
	}

	private static String requireToken(String name, String what) {
		Objects.requireNonNull(name, () -> what + " must not be null");
		if (name.isEmpty() || !name.chars().allMatch((c) -> c > 0x20 && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
			throw new IllegalArgumentException("The device token " + what + " name must be an HTTP token, but was '"
					+ name + "'");
		}
		return name;
	}

}
