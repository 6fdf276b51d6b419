package io.ratelimit.client.fleet;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * The names {@link RedisFleetTelemetry} uses in Redis, and its congestion messages.
 * <p>
 * A target is named by a hash of its host and endpoint: endpoints hold any character, and
 * a fixed-length hex name needs no escaping. The hash is the key's Redis Cluster hash
 * tag, so the keys of one target share a slot.
 */
final class RedisFleetKeys {

	private static final HexFormat HEX = HexFormat.of();

	/** Half a SHA-256: collisions stay out of reach for any number of targets. */
	private static final int TAG_BYTES = 16;

	/**
	 * Copied for each tag: looking the algorithm up takes over 100 ms the first time in a
	 * JVM, which is better spent when the telemetry is created than on a request.
	 */
	private static final MessageDigest SHA_256 = sha256();

	private final String prefix;

	private final String channel;

	RedisFleetKeys(String prefix) {
		this.prefix = prefix;
		this.channel = prefix + "congestion";
	}

	/**
	 * Returns the name of a target in keys and messages.
	 * @param target the target
	 * @return 32 hex digits
	 */
	static String tag(Target target) {
		MessageDigest digest = copy(SHA_256);
		// The length keeps ("a", "bc") and ("ab", "c") apart.
		digest.update((target.host().length() + ":" + target.host()).getBytes(StandardCharsets.UTF_8));
		byte[] hash = digest.digest(target.endpoint().getBytes(StandardCharsets.UTF_8));
		return HEX.formatHex(hash, 0, TAG_BYTES);
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform must support SHA-256", ex);
		}
	}

	private static MessageDigest copy(MessageDigest prototype) {
		try {
			return (MessageDigest) prototype.clone();
		}
		catch (CloneNotSupportedException ex) {
			return sha256();
		}
	}

	String clients(String tag, long window) {
		return key(tag, window, "clients");
	}

	String requests(String tag, long window) {
		return key(tag, window, "requests");
	}

	String congested(String tag, long window) {
		return key(tag, window, "congested");
	}

	String channel() {
		return this.channel;
	}

	private String key(String tag, long window, String name) {
		return this.prefix + "{" + tag + "}:" + window + ":" + name;
	}

	/**
	 * Returns the message that tells the fleet a client was refused.
	 * @param tag the target's tag
	 * @param window the window of the refusal
	 * @param clientId the refused client
	 * @return the message
	 */
	static String congestion(String tag, long window, String clientId) {
		// The client id goes last: it is the one part that may hold spaces.
		return tag + " " + window + " " + clientId;
	}

	/**
	 * Reads a message of {@link #congestion}.
	 * @param message the message
	 * @return the congestion, or {@code null} when the message is not one
	 */
	static @Nullable Congestion parse(String message) {
		String[] parts = message.split(" ", 3);
		if (parts.length != 3) {
			return null;
		}
		try {
			return new Congestion(parts[0], Long.parseLong(parts[1]), parts[2]);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * A refusal another process told the fleet about.
	 *
	 * @param tag the target's tag
	 * @param window the window of the refusal
	 * @param clientId the refused client
	 */
	record Congestion(String tag, long window, String clientId) {
	}

}
