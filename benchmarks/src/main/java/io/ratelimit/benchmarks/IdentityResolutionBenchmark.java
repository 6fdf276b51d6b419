package io.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.ClientIpResolver;
import io.ratelimit.core.identity.ForwardingHeader;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.IpRange;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Identity resolution: {@link IdentityResolver#resolve} with every tier configured (HS256
 * bearer tokens verified with Nimbus, API keys held in memory, client IP behind
 * a trusted proxy range {@code 10.0.0.0/8} reading {@code X-Forwarded-For}). Each case
 * cycles through a pool of {@value #POOL} requests from different clients.
 * <ul>
 * <li>{@code verifiedToken}: a valid token never seen before, so it is parsed and its
 * signature and expiry checked. The pool holds {@value #POOL} distinct tokens and the
 * token cache of this resolver holds one, so every call misses the cache.</li>
 * <li>{@code cachedToken}: a valid token from the warm token cache (10,000 entries): the
 * keyed hash of the token and a cache hit.</li>
 * <li>{@code apiKey}: an active API key among the {@value #POOL} held in memory: the keyed
 * hash of the key and a table lookup; nothing else is asked.</li>
 * <li>{@code ipDirect}: no credentials, the peer is a client (not a proxy): the peer
 * address is the identity and the forwarding header is not read.</li>
 * <li>{@code ipForwarded}: no credentials, the peer {@code 10.0.0.5} is a trusted proxy and
 * {@code X-Forwarded-For: 192.0.2.44, 198.51.100.x, 10.1.2.3}: the chain is walked right to
 * left past the trusted hop, and {@code 198.51.100.x} is the identity.</li>
 * </ul>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar IdentityResolutionBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
public class IdentityResolutionBenchmark {

	static final int POOL = 4096;

	private static final int MASK = POOL - 1;

	@State(Scope.Thread)
	public static class Resolvers {

		IdentityResolver cached;

		IdentityResolver uncached;

		final RateLimitRequest[] freshTokens = new RateLimitRequest[POOL];

		final RateLimitRequest[] knownTokens = new RateLimitRequest[POOL];

		final RateLimitRequest[] apiKeys = new RateLimitRequest[POOL];

		final RateLimitRequest[] direct = new RateLimitRequest[POOL];

		final RateLimitRequest[] forwarded = new RateLimitRequest[POOL];

		int next;

		@Setup
		public void setUp() {
			Hs256Tokens tokens = new Hs256Tokens();
			KeyedHasher keyHasher = KeyedHasher.withSecret("a-benchmark-api-key-secret");
			List<ApiKey> keyRows = new ArrayList<>();
			ReloadableApiKeys keys = new ReloadableApiKeys((limit) -> keyRows, POOL, TimeSource.system());
			ClientIpResolver clientIp = new ClientIpResolver(List.of(IpRange.parse("10.0.0.0/8")),
					ForwardingHeader.X_FORWARDED_FOR, 32, 64);
			this.cached = IdentityResolver.builder()
				.clientIp(clientIp)
				.tokenVerifier(tokens)
				.apiKeys(keys, keyHasher)
				.build();
			this.uncached = IdentityResolver.builder()
				.clientIp(clientIp)
				.tokenVerifier(tokens)
				.tokenCache(1, Duration.ofMinutes(5))
				.apiKeys(keys, keyHasher)
				.build();
			for (int i = 0; i < POOL; i++) {
				String client = "203.0.113." + (i % 250);
				String tenant = "tenant-" + (i % 40);
				this.freshTokens[i] = request(client).header("Authorization", "Bearer " + tokens.sign("fresh-" + i, tenant));
				this.knownTokens[i] = request(client).header("Authorization", "Bearer " + tokens.sign("user-" + i, tenant));
				String key = "rk_live_" + Integer.toHexString(0x10000 + i) + "c0ffee5eed";
				keyRows.add(new ApiKey(keyHasher.hashHex(key), "service-" + i, tenant, true));
				this.apiKeys[i] = request(client).header("X-API-Key", key);
				this.direct[i] = request(client);
				this.forwarded[i] = request("10.0.0.5").header("X-Forwarded-For",
						"192.0.2.44, 198.51.100." + (i % 250) + ", 10.1.2.3");
			}
			Checks.require(keys.reload(), "API keys loaded");
			for (int i = 0; i < POOL; i++) {
				Checks.require(this.cached.resolve(this.knownTokens[i]).source() == Identity.Source.TOKEN, "token identities");
				Checks.require(this.cached.resolve(this.apiKeys[i]).source() == Identity.Source.API_KEY, "API key identities");
			}
			Checks.require(this.uncached.resolve(this.freshTokens[0]).source() == Identity.Source.TOKEN,
					"fresh tokens to verify");
			Checks.require(this.cached.resolve(this.direct[7]).network().key().equals("203.0.113.7"),
					"the peer as identity");
			Checks.require(this.cached.resolve(this.forwarded[7]).network().key().equals("198.51.100.7"),
					"the first untrusted hop as identity");
		}

		private static SimpleRequest request(String client) {
			return new SimpleRequest("GET", "/api/things0/" + ApiTemplates.ID, client);
		}

		RateLimitRequest next(RateLimitRequest[] pool) {
			return pool[this.next++ & MASK];
		}

	}

	@Benchmark
	public Identity verifiedToken(Resolvers state) {
		return state.uncached.resolve(state.next(state.freshTokens));
	}

	@Benchmark
	public Identity cachedToken(Resolvers state) {
		return state.cached.resolve(state.next(state.knownTokens));
	}

	@Benchmark
	public Identity apiKey(Resolvers state) {
		return state.cached.resolve(state.next(state.apiKeys));
	}

	@Benchmark
	public Identity ipDirect(Resolvers state) {
		return state.cached.resolve(state.next(state.direct));
	}

	@Benchmark
	public Identity ipForwarded(Resolvers state) {
		return state.cached.resolve(state.next(state.forwarded));
	}

}
