package io.ratelimit.core.identity;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
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
		this.macs = ThreadLocal.withInitial(() -> new PerThread(copyOf(prototype, key)));
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
		// One update of the whole input: each update goes down several layers of the MAC.
		int length = 0;
		for (String part : parts) {
			byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
			byte[] input = state.capacity(length + 4 + bytes.length);
			input[length] = (byte) (bytes.length >>> 24);
			input[length + 1] = (byte) (bytes.length >>> 16);
			input[length + 2] = (byte) (bytes.length >>> 8);
			input[length + 3] = (byte) bytes.length;
			System.arraycopy(bytes, 0, input, length + 4, bytes.length);
			length += 4 + bytes.length;
		}
		Mac mac = state.mac();
		mac.update(state.input(), 0, length);
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
	 * A thread's copy of the MAC, and the buffer its inputs are assembled in.
	 */
	private static final class PerThread {

		private static final int INITIAL_CAPACITY = 256;

		private final Mac mac;

		private byte[] input = new byte[INITIAL_CAPACITY];

		PerThread(Mac mac) {
			this.mac = mac;
		}

		Mac mac() {
			return this.mac;
		}

		byte[] input() {
			return this.input;
		}

		/** Returns the buffer, grown to hold at least the given length, its content kept. */
		byte[] capacity(int length) {
			if (length > this.input.length) {
				this.input = Arrays.copyOf(this.input, Math.max(length, this.input.length * 2));
			}
			return this.input;
		}

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
