package io.ratelimit.core.identity;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Device tokens of a sensitive endpoint (a login): after a successful attempt, the client
 * gets a token that binds the account to a random device id until an expiry, signed with
 * an HMAC under a secret of the application. A later attempt on the same account with a
 * valid token is charged to that device's own bucket, so an attacker guessing the
 * account's password from elsewhere does not lock its owner out (OWASP's "device cookies").
 * <p>
 * A token is 64 base64url characters (48 bytes, so no character carries unused bits and
 * every token has exactly one spelling): a 12-byte device id, the expiry in epoch seconds
 * and the first 28 bytes of the HMAC-SHA256 of both and the account. Anything else (another length or alphabet, a
 * bad signature, an expired token, a token of another account) is not a device: the
 * attempt is charged to the account's shared bucket as if no token had been sent. Rotating
 * the secret revokes every token. Thread-safe.
 */
public final class DeviceTokens {

	/** Length of every token, in characters. */
	public static final int TOKEN_LENGTH = 64;

	private static final int DEVICE_ID_BYTES = 12;

	private static final int MAC_BYTES = 28;

	private static final int TOKEN_BYTES = DEVICE_ID_BYTES + Long.BYTES + MAC_BYTES;

	private static final String PURPOSE = "ratelimit-device-token";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

	private final KeyedHasher signer;

	private final Duration lifetime;

	private final TimeSource time;

	private final SecureRandom random = new SecureRandom();

	/**
	 * Creates device tokens.
	 * @param signer the HMAC under the application's device-token secret
	 * @param lifetime how long a token is valid after it is issued
	 * @param time the clock expiries are read from
	 */
	public DeviceTokens(KeyedHasher signer, Duration lifetime, TimeSource time) {
		this.signer = Objects.requireNonNull(signer, "signer must not be null");
		Objects.requireNonNull(lifetime, "lifetime must not be null");
		if (lifetime.toSeconds() < 1) {
			throw new IllegalArgumentException("The device token lifetime must be at least one second, but was "
					+ lifetime);
		}
		this.lifetime = lifetime;
		this.time = Objects.requireNonNull(time, "time must not be null");
	}

	/**
	 * Returns how long a token is valid after it is issued.
	 * @return the lifetime
	 */
	public Duration lifetime() {
		return this.lifetime;
	}

	/**
	 * Issues a token of a new device for an account.
	 * @param account the account identifier, as normalized by {@link SubmittedIdentifier}
	 * @return the token
	 */
	public String issue(String account) {
		byte[] deviceId = new byte[DEVICE_ID_BYTES];
		this.random.nextBytes(deviceId);
		long expiresAt = this.time.currentTimeMillis() / 1000 + this.lifetime.toSeconds();
		ByteBuffer token = ByteBuffer.allocate(TOKEN_BYTES);
		token.put(deviceId).putLong(expiresAt).put(mac(account, deviceId, expiresAt));
		return ENCODER.encodeToString(token.array());
	}

	/**
	 * Returns the device a token names, if it is a valid, unexpired token of the account.
	 * @param token the token the client presented, possibly {@code null} or garbage
	 * @param account the account identifier the attempt submits, normalized
	 * @return the device id, or {@code null} if the token is not a device of the account
	 */
	public @Nullable String verify(@Nullable String token, String account) {
		if (token == null || token.length() != TOKEN_LENGTH || !isBase64Url(token)) {
			return null;
		}
		ByteBuffer bytes = ByteBuffer.wrap(DECODER.decode(token));
		byte[] deviceId = new byte[DEVICE_ID_BYTES];
		bytes.get(deviceId);
		long expiresAt = bytes.getLong();
		byte[] presented = new byte[MAC_BYTES];
		bytes.get(presented);
		if (expiresAt <= this.time.currentTimeMillis() / 1000
				|| !MessageDigest.isEqual(presented, mac(account, deviceId, expiresAt))) {
			return null;
		}
		return ENCODER.encodeToString(deviceId);
	}

	private byte[] mac(String account, byte[] deviceId, long expiresAt) {
		byte[] mac = this.signer.hash(PURPOSE, account, ENCODER.encodeToString(deviceId), Long.toString(expiresAt));
		return Arrays.copyOf(mac, MAC_BYTES);
	}

	private static boolean isBase64Url(String token) {
		for (int i = 0; i < token.length(); i++) {
			char c = token.charAt(i);
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '_')) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Never shows the secret.
	 */
	@Override
	public String toString() {
		return "DeviceTokens[lifetime=" + this.lifetime + "]";
	}

}
