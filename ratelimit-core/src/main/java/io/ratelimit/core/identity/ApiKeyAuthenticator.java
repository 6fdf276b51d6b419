package io.ratelimit.core.identity;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The API-key tier: strict header syntax, then the keyed hash of the key, looked up in the
 * keys held in memory. Nothing here waits for anything: a key the set does not hold is
 * unknown at once, however many invented keys arrive and whatever state the database is in.
 */
final class ApiKeyAuthenticator {

	private static final int MAX_KEY_LENGTH = 256;

	private final ReloadableApiKeys keys;

	private final KeyedHasher hasher;

	private final String headerName;

	ApiKeyAuthenticator(ReloadableApiKeys keys, KeyedHasher hasher, String headerName) {
		this.keys = keys;
		this.hasher = hasher;
		this.headerName = headerName;
	}

	String headerName() {
		return this.headerName;
	}

	/**
	 * @param values every line of the API-key header
	 * @return the owner of the active key, or {@code null} if none was presented or it is
	 * not an active key
	 */
	@Nullable AuthenticatedPrincipal authenticate(List<String> values) {
		if (values.size() != 1 || !isWellFormed(values.get(0))) {
			return null;
		}
		ApiKeyDirectory directory = this.keys.current();
		if (directory.size() == 0) {
			return null;
		}
		int index = directory.indexOf(this.hasher.hash(values.get(0)));
		return (index >= 0) ? new AuthenticatedPrincipal(directory.principal(index), directory.tenant(index),
				directory.plan(index)) : null;
	}

	/**
	 * Visible ASCII only: anything else cannot be a key we issued, and is not worth a hash.
	 */
	private static boolean isWellFormed(String key) {
		if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
			return false;
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c < 0x21 || c > 0x7e) {
				return false;
			}
		}
		return true;
	}

}
