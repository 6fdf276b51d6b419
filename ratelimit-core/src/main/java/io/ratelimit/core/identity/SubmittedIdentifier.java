package io.ratelimit.core.identity;

import java.util.Collection;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The account identifier a client submitted to a sensitive endpoint (the username of a
 * login), the fact that none could be read, or that the request submitted nothing at all.
 * Attacker-controlled by nature: it only ever keys the second bucket of a sensitive
 * endpoint, never an identity.
 */
public final class SubmittedIdentifier {

	/** Longest identifier kept; longer ones are cut, which can only merge buckets. */
	public static final int MAXIMUM_LENGTH = 256;

	/**
	 * An identifier that could not be read: a malformed, oversized or incomplete body, or
	 * one naming several accounts. Every unreadable attempt of an endpoint is charged to one
	 * bucket shared by all clients, so neither a parse failure nor many addresses ever
	 * skip or multiply the account's budget.
	 */
	public static final SubmittedIdentifier UNREADABLE = new SubmittedIdentifier(null, false);

	/**
	 * No account at all: a request without a body and without the field in its query (a
	 * {@code GET} of a login handler that also serves other methods). It can log nobody
	 * in, so it is charged to its client's bucket alone, not to the shared bucket of
	 * unreadable attempts, where such requests would lock every client out.
	 */
	public static final SubmittedIdentifier ABSENT = new SubmittedIdentifier(null, true);

	private final @Nullable String value;

	private final boolean absent;

	private SubmittedIdentifier(@Nullable String value, boolean absent) {
		this.value = value;
		this.absent = absent;
	}

	/**
	 * Returns the identifier a client submitted, trimmed and lower-cased so that
	 * {@code Alice} and {@code alice } share a bucket.
	 * @param raw the submitted text
	 * @return the identifier, or {@link #UNREADABLE} if the text is blank
	 */
	public static SubmittedIdentifier of(@Nullable String raw) {
		return of(raw, IdentifierNormalization.LOWER_CASE);
	}

	/**
	 * Returns the identifier a client submitted.
	 * @param raw the submitted text
	 * @param normalization how spellings of one account are made equal
	 * @return the identifier, or {@link #UNREADABLE} if the text is blank
	 */
	public static SubmittedIdentifier of(@Nullable String raw, IdentifierNormalization normalization) {
		if (raw == null || raw.isBlank()) {
			return UNREADABLE;
		}
		String normalized = normalization.normalize(raw);
		if (normalized.isBlank()) {
			return UNREADABLE;
		}
		return new SubmittedIdentifier(
				(normalized.length() > MAXIMUM_LENGTH) ? normalized.substring(0, MAXIMUM_LENGTH) : normalized, false);
	}

	/**
	 * Returns the one account that every submitted name denotes. An attempt that names
	 * two accounts (a form field repeated, or given in the query and the body) cannot be
	 * charged by the one the application reads, since applications differ in which that
	 * is: it is unreadable, and never refunded or given a device token.
	 * @param raws every value the request submits for the identifier, in any order
	 * @param normalization how spellings of one account are made equal
	 * @return the identifier, or {@link #UNREADABLE} if there is none, a blank one, or
	 * several that normalize differently
	 */
	public static SubmittedIdentifier ofAll(Collection<String> raws, IdentifierNormalization normalization) {
		SubmittedIdentifier found = UNREADABLE;
		for (String raw : raws) {
			SubmittedIdentifier one = of(raw, normalization);
			if (!one.isReadable() || (found.isReadable() && !found.equals(one))) {
				return UNREADABLE;
			}
			found = one;
		}
		return found;
	}

	/**
	 * Returns the identifier, normalized.
	 * @return the identifier, or {@code null} if none was read
	 */
	public @Nullable String value() {
		return this.value;
	}

	/**
	 * Returns whether the request submitted no account at all.
	 * @return whether this is {@link #ABSENT}
	 */
	public boolean isAbsent() {
		return this.absent;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof SubmittedIdentifier identifier && this.absent == identifier.absent
				&& Objects.equals(this.value, identifier.value));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.value, this.absent);
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
		return isReadable() ? "SubmittedIdentifier[present]"
				: this.absent ? "SubmittedIdentifier[absent]" : "SubmittedIdentifier[unreadable]";
	}

}
