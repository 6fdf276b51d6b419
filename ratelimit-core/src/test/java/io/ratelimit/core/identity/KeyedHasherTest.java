package io.ratelimit.core.identity;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keyed hash of several parts is HMAC-SHA256 over each part's UTF-8 bytes after its
 * four-byte big-endian length: a fixed format, since replicas sharing Redis must derive
 * the same keys.
 */
class KeyedHasherTest {

	private static final byte[] SECRET = "a-secret-of-sixteen-bytes-or-more".getBytes(StandardCharsets.UTF_8);

	private final KeyedHasher hasher = KeyedHasher.withSecret(SECRET);

	@Test
	void hashOfPartsIsHmacOfLengthPrefixedParts() throws Exception {
		String[] parts = { "GET /api/things/*", "network", "192.0.2.0", "", "é" };
		assertThat(this.hasher.hash(parts)).isEqualTo(hmacOfLengthPrefixed(parts));
	}

	@Test
	void hashOfLongPartsIsHmacOfLengthPrefixedParts() throws Exception {
		String[] parts = { "x".repeat(300), "y".repeat(1000), "z" };
		assertThat(this.hasher.hash(parts)).isEqualTo(hmacOfLengthPrefixed(parts));
		// And a short input after the long one: nothing of it is left over.
		assertThat(this.hasher.hash("a", "b")).isEqualTo(hmacOfLengthPrefixed("a", "b"));
	}

	@Test
	void partBoundariesChangeTheHash() {
		assertThat(this.hasher.hash("ab", "c")).isNotEqualTo(this.hasher.hash("a", "bc"));
	}

	private static byte[] hmacOfLengthPrefixed(String... parts) throws Exception {
		ByteArrayOutputStream input = new ByteArrayOutputStream();
		for (String part : parts) {
			byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
			input.write(new byte[] { (byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
					(byte) (bytes.length >>> 8), (byte) bytes.length });
			input.write(bytes);
		}
		Mac mac = Mac.getInstance("HmacSHA256");
		mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
		return mac.doFinal(input.toByteArray());
	}

}
