package io.ratelimit.core.identity;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under a secret key: how secrets (API keys, tokens) and identities become
 * lookup and bucket keys without ever being stored or shown raw. Without the secret a
 * leaked key cannot be reversed or confirmed by hashing guesses.
 * <p>
 * Multi-part inputs are length-prefixed, so {@code ("ab", "c")} and {@code ("a", "bc")}
 * never hash alike. Instances are thread-safe.
 */
public final class KeyedHasher {

	/** Shortest accepted secret: HMAC-SHA256 gains nothing from more than 32 bytes. */
	public static final int MINIMUM_SECRET_LENGTH = 16;

	private static final String ALGORITHM = "HmacSHA256";

	private final ThreadLocal<PerThread> macs;

	private KeyedHasher(byte[] secret) {
		SecretKeySpec key = new SecretKeySpec(secret, ALGORITHM);
		Mac prototype = newMac(key);
		this.macs = ThreadLocal.withInitial(() -> new PerThread(copyOf(prototype, key), new byte[4]));
	}

	/**
	 * Returns a hasher under the given secret.
	 * @param secret the secret, at least {@value #MINIMUM_SECRET_LENGTH} bytes
	 * @return the hasher
	 */
	public static KeyedHasher withSecret(byte[] secret) {
		Objects.requireNonNull(secret, "secret must not be null");
		if (secret.length < MINIMUM_SECRET_LENGTH) {
			throw new IllegalArgumentException("The key secret must be at least " + MINIMUM_SECRET_LENGTH
					+ " bytes long, but was " + secret.length);
		}
		return new KeyedHasher(secret.clone());
	}

	/**
	 * Returns a hasher under the given secret text, encoded as UTF-8.
	 * @param secret the secret, at least {@value #MINIMUM_SECRET_LENGTH} bytes in UTF-8
	 * @return the hasher
	 */
	public static KeyedHasher withSecret(String secret) {
		Objects.requireNonNull(secret, "secret must not be null");
		return withSecret(secret.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Returns a hasher under a fresh random secret, for keys that need only be stable
	 * within this process (local buckets).
	 * @return the hasher
	 */
	public static KeyedHasher withRandomSecret() {
		byte[] secret = new byte[32];
		new SecureRandom().nextBytes(secret);
		return new KeyedHasher(secret);
	}

	/**
	 * Returns the HMAC of one value.
	 * @param value the value, encoded as UTF-8
	 * @return the 32-byte HMAC
	 */
	public byte[] hash(String value) {
		Mac mac = this.macs.get().mac();
		return mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Returns the HMAC of one value as lower-case hex, the form stored in key tables.
	 * @param value the value, encoded as UTF-8
	 * @return 64 hex digits
	 */
	public String hashHex(String value) {
		return HexFormat.of().formatHex(hash(value));
	}

	/**
	 * Returns the HMAC of several values, each length-prefixed.
	 * @param parts the values, none {@code null}
	 * @return the 32-byte HMAC
	 */
	public byte[] hash(String... parts) {
		PerThread state = this.macs.get();
		Mac mac = state.mac();
		byte[] prefix = state.lengthPrefix();
		for (String part : parts) {
			byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
			int length = bytes.length;
			prefix[0] = (byte) (length >>> 24);
			prefix[1] = (byte) (length >>> 16);
			prefix[2] = (byte) (length >>> 8);
			prefix[3] = (byte) length;
			// One update of four bytes: four single-byte updates cost a fifth of the whole hash.
			mac.update(prefix);
			mac.update(bytes);
		}
		return mac.doFinal();
	}

	/**
	 * Never shows the secret.
	 */
	@Override
	public String toString() {
		return "KeyedHasher[" + ALGORITHM + "]";
	}

	/**
	 * A thread's copy of the MAC, and the buffer of its length prefixes.
	 */
	private record PerThread(Mac mac, byte[] lengthPrefix) {
	}

	private static Mac newMac(SecretKeySpec key) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(key);
			return mac;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ALGORITHM + " is not available in this JVM", ex);
		}
	}

	private static Mac copyOf(Mac prototype, SecretKeySpec key) {
		try {
			return (Mac) prototype.clone();
		}
		catch (CloneNotSupportedException ex) {
			return newMac(key);
		}
	}

}
