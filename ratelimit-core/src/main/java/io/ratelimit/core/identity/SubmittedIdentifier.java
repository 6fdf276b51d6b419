package io.ratelimit.core.identity;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The account identifier a client submitted to a sensitive endpoint (the username of a
 * login), or the fact that none could be read. Attacker-controlled by nature: it only
 * ever keys the second bucket of a sensitive endpoint, never an identity.
 *
 * @param value the identifier, normalized, or {@code null} if it could not be read
 */
public record SubmittedIdentifier(@Nullable String value) {

	/** Longest identifier kept; longer ones are cut, which can only merge buckets. */
	public static final int MAXIMUM_LENGTH = 256;

	/**
	 * An identifier that could not be read: a malformed, oversized or incomplete body. It
	 * is charged to a shared bucket of the client's network, so a parse failure never
	 * skips the check.
	 */
	public static final SubmittedIdentifier UNREADABLE = new SubmittedIdentifier(null);

	/**
	 * Returns the identifier a client submitted, trimmed and lower-cased so that
	 * {@code Alice} and {@code alice } share a bucket.
	 * @param raw the submitted text
	 * @return the identifier, or {@link #UNREADABLE} if the text is blank
	 */
	public static SubmittedIdentifier of(@Nullable String raw) {
		if (raw == null || raw.isBlank()) {
			return UNREADABLE;
		}
		String normalized = raw.strip().toLowerCase(Locale.ROOT);
		return new SubmittedIdentifier(
				(normalized.length() > MAXIMUM_LENGTH) ? normalized.substring(0, MAXIMUM_LENGTH) : normalized);
	}

	/**
	 * Returns whether an identifier was read.
	 * @return whether there is a value
	 */
	public boolean isReadable() {
		return this.value != null;
	}

	/**
	 * Never shows the identifier, which may be a user's email address.
	 */
	@Override
	public String toString() {
		return isReadable() ? "SubmittedIdentifier[present]" : "SubmittedIdentifier[unreadable]";
	}

}
