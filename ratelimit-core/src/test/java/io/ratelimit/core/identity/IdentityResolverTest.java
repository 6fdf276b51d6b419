package io.ratelimit.core.identity;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.TestRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The identity tiers and their fallbacks: anything that fails verification is limited by
 * its network identity, and no secret leaks into what the resolver returns.
 */
class IdentityResolverTest {

	private static final String PEER = "198.51.100.7";

	private static final String ACTIVE_KEY = "ak_live_acme_0123456789abcdef";

	private static final String INACTIVE_KEY = "ak_live_revoked_0123456789abc";

	private static final KeyedHasher KEY_HASHER = KeyedHasher.withSecret("the-api-key-hashing-secret-32by");

	private final FakeTimeSource time = new FakeTimeSource();

	private final Hs256Tokens tokens = new Hs256Tokens(Hs256Tokens.SECRET, this.time);

	private final Map<String, ApiKey> keyTable = new HashMap<>();

	private final AtomicInteger sourceCalls = new AtomicInteger();

	private final AtomicInteger verifierCalls = new AtomicInteger();

	private IdentityResolver resolver;

	@BeforeEach
	void setUp() {
		this.keyTable.put(KEY_HASHER.hashHex(ACTIVE_KEY),
				new ApiKey(KEY_HASHER.hashHex(ACTIVE_KEY), "key-acme-1", "acme", true));
		this.keyTable.put(KEY_HASHER.hashHex(INACTIVE_KEY),
				new ApiKey(KEY_HASHER.hashHex(INACTIVE_KEY), "key-acme-2", "acme", false));
		ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> {
			this.sourceCalls.incrementAndGet();
			return List.copyOf(this.keyTable.values());
		}, 100, this.time);
		keys.reload();
		TokenVerifier verifier = (token) -> {
			this.verifierCalls.incrementAndGet();
			return this.tokens.verify(token);
		};
		this.resolver = IdentityResolver.builder()
			.timeSource(this.time)
			.tokenVerifier(verifier)
			.apiKeys(keys, KEY_HASHER)
			.build();
	}

	private String token(String subject, Duration validFor) {
		return this.tokens.sign(subject, "acme", this.time.now().plus(validFor));
	}

	private Identity resolveWithAuthorization(String authorization) {
		return this.resolver.resolve(TestRequest.get("/api/products").from(PEER).header("Authorization", authorization));
	}

	private Identity resolveWithKey(String key) {
		return this.resolver.resolve(TestRequest.get("/api/products").from(PEER).header("X-API-Key", key));
	}

	private static void assertNetworkIdentity(Identity identity) {
		assertThat(identity.source()).isEqualTo(Identity.Source.NETWORK);
		assertThat(identity.principal()).isNull();
		assertThat(identity.tenant()).isNull();
		assertThat(identity.network().key()).isEqualTo(PEER);
	}

	@Test
	void resolveWhenValidTokenThenSubjectAndTenant() {
		Identity identity = resolveWithAuthorization("Bearer " + token("alice", Duration.ofMinutes(5)));

		assertThat(identity.source()).isEqualTo(Identity.Source.TOKEN);
		assertThat(identity.principal()).isEqualTo("alice");
		assertThat(identity.tenant()).isEqualTo("acme");
		assertThat(identity.network().key()).isEqualTo(PEER);
	}

	@Test
	void resolveWhenSameTokenAgainThenServedFromCacheUntilItExpires() {
		String token = token("alice", Duration.ofSeconds(30));
		for (int i = 0; i < 10; i++) {
			assertThat(resolveWithAuthorization("Bearer " + token).principal()).isEqualTo("alice");
		}
		assertThat(this.verifierCalls).hasValue(1);

		this.time.advance(Duration.ofSeconds(31));

		assertNetworkIdentity(resolveWithAuthorization("Bearer " + token));
	}

	@Test
	void resolveWhenTokenExpiredThenNetworkIdentity() {
		String token = token("alice", Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(2));

		assertNetworkIdentity(resolveWithAuthorization("Bearer " + token));
	}

	@Test
	void resolveWhenTokenSignedWithAnotherSecretThenNetworkIdentity() {
		String forged = new Hs256Tokens("a-different-secret-that-is-32-bytes-or-more!", this.time).sign("alice", "acme",
				this.time.now().plusSeconds(60));

		assertNetworkIdentity(resolveWithAuthorization("Bearer " + forged));
	}

	@Test
	void resolveWhenTokenPayloadTamperedThenNetworkIdentity() {
		String[] parts = token("alice", Duration.ofMinutes(5)).split("\\.");
		String tampered = parts[0] + "." + token("mallory", Duration.ofMinutes(5)).split("\\.")[1] + "." + parts[2];

		assertNetworkIdentity(resolveWithAuthorization("Bearer " + tampered));
	}

	@ParameterizedTest
	@ValueSource(strings = { "Bearer", "Bearer ", "Bearer  abc", "Bearer abc def", "Bearer abc=def", "Bearer a\u00e9b",
			"Basic YWxpY2U6c2VjcmV0", "Token abc", "bearer not.a.jwt", "Bearer ...", "Bearer =" })
	void resolveWhenAuthorizationMalformedOrUnverifiableThenNetworkIdentity(String authorization) {
		assertNetworkIdentity(resolveWithAuthorization(authorization));
	}

	@Test
	void resolveWhenSchemeInOtherCaseThenStillAToken() {
		assertThat(resolveWithAuthorization("bEaReR " + token("alice", Duration.ofMinutes(5))).principal())
			.isEqualTo("alice");
	}

	@Test
	void resolveWhenTwoAuthorizationHeadersThenNotAnIdentity() {
		String token = "Bearer " + token("alice", Duration.ofMinutes(5));

		assertNetworkIdentity(this.resolver.resolve(TestRequest.get("/api/products")
			.from(PEER)
			.header("Authorization", token)
			.header("Authorization", token)));
	}

	@Test
	void resolveWhenVerifierThrowsThenNetworkIdentity() {
		IdentityResolver throwing = IdentityResolver.builder().tokenVerifier((token) -> {
			throw new IllegalStateException("key set endpoint down");
		}).build();

		assertNetworkIdentity(throwing.resolve(TestRequest.get("/").from(PEER).header("Authorization", "Bearer abc")));
	}

	@Test
	void resolveWhenApplicationAuthenticatedThePrincipalThenItOutranksTokenAndKey() {
		IdentityResolver resolver = IdentityResolver.builder()
			.timeSource(this.time)
			.authenticatedPrincipals((request) -> "session".equals(request.header("Cookie"))
					? new AuthenticatedPrincipal("bob", "globex") : null)
			.tokenVerifier(this.tokens)
			.build();
		TestRequest request = TestRequest.get("/")
			.from(PEER)
			.header("Cookie", "session")
			.header("Authorization", "Bearer " + token("alice", Duration.ofMinutes(5)));

		Identity identity = resolver.resolve(request);

		assertThat(identity.source()).isEqualTo(Identity.Source.AUTHENTICATED);
		assertThat(identity.principal()).isEqualTo("bob");
		assertThat(identity.tenant()).isEqualTo("globex");
		assertThat(resolver.resolve(TestRequest.get("/")
			.from(PEER)
			.header("Authorization", "Bearer " + token("alice", Duration.ofMinutes(5)))).principal()).isEqualTo("alice");
	}

	@Test
	void resolveWhenPrincipalResolverThrowsThenNextTiersDecide() {
		IdentityResolver resolver = IdentityResolver.builder().authenticatedPrincipals((request) -> {
			throw new IllegalStateException("no security context");
		}).build();

		assertNetworkIdentity(resolver.resolve(TestRequest.get("/").from(PEER)));
	}

	@Test
	void resolveWhenActiveApiKeyThenKeyPrincipalAndTenant() {
		Identity identity = resolveWithKey(ACTIVE_KEY);

		assertThat(identity.source()).isEqualTo(Identity.Source.API_KEY);
		assertThat(identity.principal()).isEqualTo("key-acme-1");
		assertThat(identity.tenant()).isEqualTo("acme");
	}

	@Test
	void resolveWhenKeysPresentedThenKeySourceNeverAsked() {
		for (int i = 0; i < 1000; i++) {
			resolveWithKey(ACTIVE_KEY);
			resolveWithKey("ak_unknown_key_" + i);
		}

		assertThat(this.sourceCalls).as("the load in setUp only").hasValue(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "ak_unknown_key", INACTIVE_KEY, "", " ", "ak live", "ak_\u00e9", "ak_\u0000" })
	void resolveWhenApiKeyUnknownInactiveOrMalformedThenNetworkIdentity(String key) {
		assertNetworkIdentity(resolveWithKey(key));
	}

	@Test
	void resolveWhenApiKeyTooLongThenNetworkIdentity() {
		assertNetworkIdentity(resolveWithKey("k".repeat(257)));
	}

	@Test
	void resolveWhenTableRowHasHashInOtherCaseThenNeverMatches() {
		// A table that a sloppy tool filled with upper-case hex must not match loosely.
		String hash = KEY_HASHER.hashHex("anything");
		ReloadableApiKeys keys = new ReloadableApiKeys(
				(limit) -> List.of(new ApiKey(hash.toUpperCase(), "someone", null, true)), 10, this.time);
		keys.reload();
		IdentityResolver resolver = IdentityResolver.builder().apiKeys(keys, KEY_HASHER).build();

		assertNetworkIdentity(resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", "anything")));
	}

	@Test
	void resolveBeforeKeysFirstLoadedThenNetworkIdentity() {
		ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> List.copyOf(this.keyTable.values()), 10, this.time);
		IdentityResolver resolver = IdentityResolver.builder().apiKeys(keys, KEY_HASHER).build();

		assertNetworkIdentity(resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", ACTIVE_KEY)));
		keys.reload();
		assertThat(resolver.resolve(TestRequest.get("/").from(PEER).header("X-API-Key", ACTIVE_KEY)).principal())
			.isEqualTo("key-acme-1");
	}

	@Test
	void resolveWhenInvalidTokenAndValidKeyThenKeyIdentity() {
		Identity identity = this.resolver.resolve(TestRequest.get("/")
			.from(PEER)
			.header("Authorization", "Bearer forged.token.value")
			.header("X-API-Key", ACTIVE_KEY));

		assertThat(identity.source()).isEqualTo(Identity.Source.API_KEY);
	}

	@Test
	void resolveAnonymousWhenCredentialsPresentThenIgnoresThemWithoutWork() {
		Identity identity = this.resolver.resolveAnonymous(TestRequest.get("/")
			.from(PEER)
			.header("Authorization", "Bearer " + token("alice", Duration.ofMinutes(5)))
			.header("X-API-Key", ACTIVE_KEY));

		assertNetworkIdentity(identity);
		assertThat(this.verifierCalls).hasValue(0);
	}

	@Test
	void resolveWhenAnyCredentialUsedThenNoSecretInIdentityOrItsText() {
		String token = token("alice", Duration.ofMinutes(5));
		List<Object> seen = new ArrayList<>();
		seen.add(resolveWithAuthorization("Bearer " + token));
		seen.add(resolveWithKey(ACTIVE_KEY));
		seen.add(resolveWithKey(INACTIVE_KEY));
		seen.add(this.keyTable.get(KEY_HASHER.hashHex(ACTIVE_KEY)));
		seen.add(KEY_HASHER);

		for (Object value : seen) {
			assertThat(value.toString()).doesNotContain(token)
				.doesNotContain(token.split("\\.")[2])
				.doesNotContain(ACTIVE_KEY)
				.doesNotContain(INACTIVE_KEY)
				.doesNotContain(KEY_HASHER.hashHex(ACTIVE_KEY));
		}
	}

	@Test
	void withSecretWhenTooShortThenMessageSaysHowLongWithoutEchoingIt() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> KeyedHasher.withSecret("short-secret"))
			.withMessage("The key secret must be at least 16 bytes long, but was 12")
			.withMessageNotContaining("short-secret");
	}


}
