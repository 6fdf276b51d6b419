package io.ratelimit.core.bucket;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.NetworkIdentity;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BucketKeysTest {

	private static final EndpointTemplate USERS = EndpointTemplate.of("GET", "/api/users/*");

	private static final EndpointTemplate ORDERS = EndpointTemplate.of("POST", "/api/orders");

	private static final KeyedHasher HASHER = KeyedHasher.withSecret("a-shared-secret-of-32-bytes-long");

	private static final NetworkIdentity HOME = new NetworkIdentity("198.51.100.7");

	private static final NetworkIdentity CAFE = new NetworkIdentity("203.0.113.9");

	private static Identity alice(NetworkIdentity network) {
		return new Identity(Identity.Source.API_KEY, "alice", "acme", network);
	}

	@Test
	void keyForWhenPrincipalMovesNetworksThenSameBucketByDefault() {
		BucketKeys keys = new BucketKeys(HASHER, false);

		assertThat(keys.keyFor(USERS, alice(HOME))).isEqualTo(keys.keyFor(USERS, alice(CAFE)));
	}

	@Test
	void keyForWhenNetworkIncludedForPrincipalsThenBucketPerNetwork() {
		BucketKeys keys = new BucketKeys(HASHER, true);

		assertThat(keys.keyFor(USERS, alice(HOME))).isNotEqualTo(keys.keyFor(USERS, alice(CAFE)));
	}

	@Test
	void keyForWhenAnythingDiffersThenDifferentBucket() {
		BucketKeys keys = new BucketKeys(HASHER, false);
		BucketKey base = keys.keyFor(USERS, alice(HOME));

		assertThat(keys.keyFor(ORDERS, alice(HOME))).isNotEqualTo(base);
		assertThat(keys.keyFor(USERS, new Identity(Identity.Source.API_KEY, "alice", "globex", HOME)))
			.isNotEqualTo(base);
		assertThat(keys.keyFor(USERS, new Identity(Identity.Source.TOKEN, "alice", "acme", HOME))).isNotEqualTo(base);
		assertThat(keys.keyFor(USERS, Identity.anonymous(HOME))).isNotEqualTo(base);
		assertThat(keys.keyFor(USERS, Identity.anonymous(HOME))).isNotEqualTo(keys.keyFor(USERS, Identity.anonymous(CAFE)));
		assertThat(new BucketKeys(KeyedHasher.withSecret("another-secret-of-32-bytes-long!"), false)
			.keyFor(USERS, alice(HOME))).isNotEqualTo(base);
	}

	@Test
	void keyForWhenPartsShiftBetweenFieldsThenNoCollision() {
		BucketKeys keys = new BucketKeys(HASHER, false);

		assertThat(keys.keyFor(USERS, new Identity(Identity.Source.API_KEY, "b", "ac", HOME)))
			.isNotEqualTo(keys.keyFor(USERS, new Identity(Identity.Source.API_KEY, "cb", "a", HOME)));
	}

	@Test
	void keyForWhenSameInputsAndSecretThenStableAcrossInstances() {
		assertThat(new BucketKeys(HASHER, false).keyFor(USERS, alice(HOME)))
			.isEqualTo(new BucketKeys(KeyedHasher.withSecret("a-shared-secret-of-32-bytes-long"), false)
				.keyFor(USERS, alice(HOME)));
	}

	@Test
	void keyForWhenFarMorePairsThanRememberedThenEachPairKeepsItsOwnKey() {
		BucketKeys keys = new BucketKeys(HASHER, false);
		List<Map.Entry<EndpointTemplate, Identity>> pairs = new ArrayList<>();
		for (int i = 0; i < 5 * BucketKeys.RECENT_KEYS; i++) {
			NetworkIdentity network = new NetworkIdentity("10.0." + (i >>> 8) + "." + (i & 0xff));
			pairs.add(Map.entry(USERS, Identity.anonymous(network)));
			pairs.add(Map.entry(ORDERS, Identity.anonymous(network)));
			pairs.add(Map.entry(USERS, new Identity(Identity.Source.TOKEN, "user-" + i, "acme", network)));
		}
		Map<Map.Entry<EndpointTemplate, Identity>, BucketKey> first = new HashMap<>();
		pairs.forEach((pair) -> first.put(pair, keys.keyFor(pair.getKey(), pair.getValue())));
		Collections.shuffle(pairs, new Random(42));

		for (int pass = 0; pass < 2; pass++) {
			for (Map.Entry<EndpointTemplate, Identity> pair : pairs) {
				// Equal but not the same objects, as each request builds its own.
				Identity identity = pair.getValue();
				Identity copy = new Identity(identity.source(), identity.principal(), identity.tenant(),
						new NetworkIdentity(identity.network().key()));
				assertThat(keys.keyFor(pair.getKey(), copy)).as("%s", pair).isEqualTo(first.get(pair));
			}
		}
		assertThat(new HashSet<>(first.values())).hasSize(pairs.size());
		assertThat(first.get(pairs.get(0))).isEqualTo(new BucketKeys(HASHER, false)
			.keyFor(pairs.get(0).getKey(), pairs.get(0).getValue()));
	}

	@Test
	void limitKeysWhenScopeOrNameDiffersThenDifferentBucketsAndNeverAnEndpointsOwn() {
		BucketKeys keys = new BucketKeys(HASHER, false);
		BucketKey api = keys.apiKeyFor("hourly", alice(HOME));

		assertThat(keys.apiKeyFor("hourly", alice(CAFE))).as("a principal wherever it calls from").isEqualTo(api);
		assertThat(keys.apiKeyFor("daily", alice(HOME))).isNotEqualTo(api);
		assertThat(keys.apiKeyFor("hourly", Identity.anonymous(HOME))).isNotEqualTo(api);
		assertThat(keys.groupKeyFor("hourly", "writes", alice(HOME))).isNotEqualTo(api);
		assertThat(keys.endpointLimitKeyFor("hourly", USERS, alice(HOME))).isNotEqualTo(api)
			.isNotEqualTo(keys.endpointLimitKeyFor("hourly", ORDERS, alice(HOME)))
			.isNotEqualTo(keys.keyFor(USERS, alice(HOME)));
		assertThat(keys.groupKeyFor("a of b", "c", alice(HOME))).isNotEqualTo(keys.groupKeyFor("a", "b of c", alice(HOME)));
	}

	@Test
	void limitKeysWhenRememberedOrComputedAfreshThenTheSame() {
		BucketKeys keys = new BucketKeys(HASHER, false);
		BucketKey first = keys.groupKeyFor("content", "writes", alice(HOME));
		for (int i = 0; i < 3 * BucketKeys.RECENT_KEYS; i++) {
			keys.apiKeyFor("hourly", Identity.anonymous(new NetworkIdentity("198.51.100." + (i % 250))));
			keys.apiKeyFor("hourly-" + i, alice(HOME));
		}

		assertThat(keys.groupKeyFor("content", "writes", alice(HOME))).isEqualTo(first)
			.isEqualTo(new BucketKeys(HASHER, false).groupKeyFor("content", "writes", alice(HOME)));
	}

}
