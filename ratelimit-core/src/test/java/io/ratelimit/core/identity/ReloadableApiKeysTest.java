package io.ratelimit.core.identity;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.TestRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The API keys held in memory: what a reload brings in and takes out, what a failed or
 * oversized load leaves in place, and what a hundred thousand keys cost.
 */
class ReloadableApiKeysTest {

	private static final KeyedHasher HASHER = KeyedHasher.withSecret("the-api-key-hashing-secret-32by");

	private static final String PEER = "198.51.100.7";

	private final FakeTimeSource time = new FakeTimeSource();

	private final Map<String, ApiKey> table = new LinkedHashMap<>();

	private final AtomicBoolean tableDown = new AtomicBoolean();

	private final AtomicInteger lastLimit = new AtomicInteger();

	private ReloadableApiKeys keys;

	private IdentityResolver resolver;

	@BeforeEach
	void setUp() {
		this.keys = newKeys(10);
		this.resolver = IdentityResolver.builder().apiKeys(this.keys, HASHER).build();
	}

	private ReloadableApiKeys newKeys(int maximum) {
		return new ReloadableApiKeys((limit) -> {
			this.lastLimit.set(limit);
			if (this.tableDown.get()) {
				throw new IllegalStateException("connection refused");
			}
			return this.table.values().stream().filter(ApiKey::active).limit(limit).toList();
		}, maximum, this.time);
	}

	private void issue(String key, String principal, String tenant) {
		String hash = HASHER.hashHex(key);
		this.table.put(hash, new ApiKey(hash, principal, tenant, true));
	}

	private Identity resolve(String key) {
		return this.resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", key));
	}

	@Test
	void reloadWhenKeyIssuedThenKnownFromThenOn() {
		this.keys.reload();
		issue("key-1", "billing", "acme");
		assertThat(resolve("key-1").source()).isEqualTo(Identity.Source.NETWORK);

		assertThat(this.keys.reload()).isTrue();

		Identity identity = resolve("key-1");
		assertThat(identity.source()).isEqualTo(Identity.Source.API_KEY);
		assertThat(identity.principal()).isEqualTo("billing");
		assertThat(identity.tenant()).isEqualTo("acme");
		assertThat(this.keys.size()).isEqualTo(1);
		assertThat(this.keys.loads()).isEqualTo(2);
		assertThat(this.keys.loadedAt()).isEqualTo(this.time.now());
	}

	@Test
	void reloadWhenKeyDeactivatedOrDeletedThenUnknownAtOnce() {
		issue("key-1", "billing", "acme");
		issue("key-2", "reports", null);
		this.keys.reload();
		String hash = HASHER.hashHex("key-1");
		this.table.put(hash, new ApiKey(hash, "billing", "acme", false));
		this.table.remove(HASHER.hashHex("key-2"));

		this.keys.reload();

		assertThat(resolve("key-1").source()).isEqualTo(Identity.Source.NETWORK);
		assertThat(resolve("key-2").source()).isEqualTo(Identity.Source.NETWORK);
		assertThat(this.keys.size()).isZero();
	}

	@Test
	void reloadWhenTableUnreadableThenKeysLoadedBeforeStayAndFailureIsCounted() {
		issue("key-1", "billing", "acme");
		this.keys.reload();
		this.tableDown.set(true);

		assertThat(this.keys.reload()).isFalse();

		assertThat(this.keys.lastFailure()).isEqualTo("IllegalStateException: connection refused");
		assertThat(this.keys.failedReloads()).isEqualTo(1);
		assertThat(resolve("key-1").principal()).isEqualTo("billing");
		this.tableDown.set(false);
		assertThat(this.keys.reload()).isTrue();
		assertThat(this.keys.lastFailure()).isNull();
	}

	@Test
	void reloadWhenMoreActiveKeysThanTheMaximumThenFailsAndKeysLoadedBeforeStay() {
		for (int i = 0; i < 10; i++) {
			issue("key-" + i, "service-" + i, null);
		}
		this.keys.reload();
		issue("key-10", "service-10", null);

		assertThat(this.keys.reload()).isFalse();

		assertThat(this.lastLimit).as("asks one more than it holds, never the whole table").hasValue(11);
		assertThat(this.keys.lastFailure()).contains("more than 10 active API keys");
		assertThat(this.keys.size()).isEqualTo(10);
		assertThat(resolve("key-3").principal()).isEqualTo("service-3");
		assertThat(resolve("key-10").source()).isEqualTo(Identity.Source.NETWORK);
	}

	@Test
	void reloadWhenRowsInactiveMalformedOrRepeatedThenSkippedAndOthersServe() {
		String hash = HASHER.hashHex("key-1");
		List<ApiKey> rows = List.of(new ApiKey(hash, "billing", "acme", true),
				new ApiKey(hash, "impostor", "globex", true), new ApiKey(HASHER.hashHex("key-2"), "old", null, false),
				new ApiKey("not-a-hash", "broken", null, true), new ApiKey(hash.substring(2), "short", null, true),
				new ApiKey(HASHER.hashHex("key-3"), "", "acme", true));
		ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> rows, 10, this.time);
		IdentityResolver resolver = IdentityResolver.builder().apiKeys(keys, HASHER).build();

		assertThat(keys.reload()).isTrue();

		assertThat(keys.size()).isEqualTo(1);
		Identity identity = resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", "key-1"));
		assertThat(identity.principal()).isEqualTo("billing");
		assertThat(identity.tenant()).isEqualTo("acme");
		// A key with an empty principal is no identity: limited by its network, not failing.
		assertThat(resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", "key-3")).source())
			.isEqualTo(Identity.Source.NETWORK);
	}

	@Test
	void resolveWhenManyKeysThenEveryIssuedKeyFoundAndNoInventedOne() {
		int count = 20_000;
		List<ApiKey> rows = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			rows.add(new ApiKey(HASHER.hashHex("issued-" + i), "principal-" + i, "tenant-" + (i % 7), true));
		}
		ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> rows, count, this.time);
		keys.reload();
		IdentityResolver resolver = IdentityResolver.builder().apiKeys(keys, HASHER).build();

		for (int i = 0; i < count; i++) {
			Identity issued = resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", "issued-" + i));
			assertThat(issued.principal()).isEqualTo("principal-" + i);
			assertThat(issued.tenant()).isEqualTo("tenant-" + (i % 7));
			Identity invented = resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", "invented-" + i));
			assertThat(invented.source()).isEqualTo(Identity.Source.NETWORK);
		}
	}

	/**
	 * The budget: 100,000 active keys in at most 16 MB, each with a principal of its own
	 * as long as a UUID with a prefix, among a few tenants. Measured as the heap the
	 * holder retains, principals included.
	 */
	@Test
	void reloadWhenHundredThousandKeysThenHeldInAtMostSixteenMegabytes() {
		int count = 100_000;
		SplittableRandom random = new SplittableRandom(42);
		List<ApiKey> rows = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			byte[] hash = new byte[32];
			random.nextBytes(hash);
			rows.add(new ApiKey(HexFormat.of().formatHex(hash), "svc-" + UUID.randomUUID(),
					"tenant-" + (i % 50), true));
		}
		ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> rows, count, this.time);
		keys.reload();

		long bytes = GraphLayout.parseInstance(keys.current()).totalSize();

		System.out.printf("%,d API keys held in %,d bytes: %.1f bytes per key%n", count, bytes, (double) bytes / count);
		assertThat(keys.size()).isEqualTo(count);
		assertThat(bytes).isLessThanOrEqualTo(16L * 1024 * 1024);
	}

	@Test
	void newWhenMaximumNotPositiveThenMessageNamesIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> newKeys(0))
			.withMessageStartingWith("The maximum number of API keys must be between 1 and");
	}

}
