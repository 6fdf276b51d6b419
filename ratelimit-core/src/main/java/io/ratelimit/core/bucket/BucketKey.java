package io.ratelimit.core.bucket;

/**
 * The key of one bucket: 128 bits of a keyed hash over the endpoint and the identity. It
 * reveals neither, and two longs keep each of a million entries small.
 *
 * @param high the first 64 bits
 * @param low the next 64 bits
 */
public record BucketKey(long high, long low) {

	static BucketKey fromHash(byte[] hash) {
		if (hash.length < 16) {
			throw new IllegalArgumentException("A bucket key needs at least 16 bytes of hash, but got " + hash.length);
		}
		return new BucketKey(readLong(hash, 0), readLong(hash, 8));
	}

	private static long readLong(byte[] bytes, int offset) {
		long value = 0;
		for (int i = offset; i < offset + 8; i++) {
			value = (value << 8) | (bytes[i] & 0xff);
		}
		return value;
	}

	@Override
	public String toString() {
		return String.format("BucketKey[%016x%016x]", this.high, this.low);
	}

}
