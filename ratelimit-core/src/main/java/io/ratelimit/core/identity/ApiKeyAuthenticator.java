package io.ratelimit.core.identity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ratelimit.core.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The API-key tier: strict header syntax, then bounded caches of known and refused keys,
 * then the {@link ApiKeyStore}, asked by keyed hash. The refused cache keeps a client
 * repeating one bad key from reaching the store on every request; its short life lets a
 * newly issued key start working quickly.
 */
final class ApiKeyAuthenticator {

	private static final int MAX_KEY_LENGTH = 256;

	private final ApiKeyStore store;

	private final KeyedHasher hasher;

	private final String headerName;

	private final Cache<String, ApiKey> known;

	private final Cache<String, Boolean> refused;

	private final LongAdder storeFailures = new LongAdder();

	ApiKeyAuthenticator(ApiKeyStore store, KeyedHasher hasher, String headerName, TimeSource time, long maximumSize,
			Duration knownTtl, Duration refusedTtl) {
		this.store = store;
		this.hasher = hasher;
		this.headerName = headerName;
		this.known = newCache(time, maximumSize, knownTtl);
		this.refused = newCache(time, maximumSize, refusedTtl);
	}

	String headerName() {
		return this.headerName;
	}

	long storeFailures() {
		return this.storeFailures.sum();
	}

	/**
	 * @param values every line of the API-key header
	 * @return the active key, or {@code null} if none was presented or it is not valid
	 */
	@Nullable ApiKey authenticate(List<String> values) {
		if (values.size() != 1 || !isWellFormed(values.get(0))) {
			return null;
		}
		String hash = this.hasher.hashHex(values.get(0));
		ApiKey key = this.known.getIfPresent(hash);
		if (key != null) {
			return key;
		}
		if (this.refused.getIfPresent(hash) != null) {
			return null;
		}
		ApiKey stored;
		try {
			stored = this.store.findByHash(hash);
		}
		catch (RuntimeException ex) {
			// The store is unreachable: limit by network identity, and cache nothing so the
			// key works again as soon as the store answers.
			this.storeFailures.increment();
			return null;
		}
		if (stored != null && stored.active() && sameHash(stored.keyHash(), hash)) {
			this.known.put(hash, stored);
			return stored;
		}
		this.refused.put(hash, Boolean.TRUE);
		return null;
	}

	private static boolean sameHash(String stored, String presented) {
		return MessageDigest.isEqual(stored.getBytes(StandardCharsets.US_ASCII),
				presented.getBytes(StandardCharsets.US_ASCII));
	}

	/**
	 * Visible ASCII only: anything else cannot be a key we issued, and is not worth a lookup.
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

	private static <V> Cache<String, V> newCache(TimeSource time, long maximumSize, Duration ttl) {
		return Caffeine.newBuilder()
			.maximumSize(maximumSize)
			.expireAfterWrite(ttl)
			.ticker(time::nanoTime)
			.executor(Runnable::run)
			.build();
	}

}
