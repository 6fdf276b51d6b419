package io.ratelimit.sample.adversarial;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.BucketStoreStats;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A4, bucket explosion: distinct client addresses at full speed through the core
 * {@link RateLimiter} and its {@link LocalBucketStore} of 100,000 buckets. The store must
 * stay within its bound, and an attacker who churns invented addresses while using its
 * real one must not get its (empty) bucket back. Heap after GC and decision latency before,
 * during and after the churn are recorded, not asserted: the machine is shared.
 * <p>
 * The default build churns 200,000 addresses; {@code -Dratelimit.adversarial.full=true}
 * churns 1,000,000.
 */
class BucketExplosionTest {

	private static final EndpointTemplate PRODUCTS = EndpointTemplate.of("GET", "/api/products");

	private static final int MAXIMUM_ENTRIES = 100_000;

	/** The store's doorkeeper: a slot per bucket, rounded up to a power of two. */
	private static final int DOORKEEPER_SLOTS = 131_072;

	private static final int STEADY_CLIENTS = 1_000;

	private static final int STEADY_REQUESTS = 100_000;

	private static final String ATTACKER = "203.0.113.66";

	private final FakeClock clock = new FakeClock();

	@Test
	void evaluateWhenMillionsOfAddressesChurnThenStoreBoundedAndAttackerStaysRejected() {
		int churn = Figures.fullRun() ? 1_000_000 : 200_000;
		BucketStore store = LocalBucketStore.create(MAXIMUM_ENTRIES, this.clock);
		RateLimiter limiter = limiter(store);
		// Every array is allocated before the first heap reading, so the readings show buckets.
		long[] before = new long[STEADY_REQUESTS];
		long[] during = new long[churn];
		long[] after = new long[STEADY_REQUESTS];
		steady(limiter, after); // warm-up, overwritten later
		long heapBefore = heapAfterGc();
		steady(limiter, before);

		// The attacker empties its own bucket (20 rps, capacity 40), then churns.
		int spent = 0;
		while (!limiter.evaluate(request(ATTACKER)).isRejected()) {
			spent++;
		}
		long maxEntries = 0;
		int attackerAdmitted = 0;
		for (int i = 0; i < churn; i++) {
			CoreRequest invented = request(address(i));
			long start = System.nanoTime();
			limiter.evaluate(invented);
			during[i] = System.nanoTime() - start;
			if (i % 100 == 0) {
				attackerAdmitted += limiter.evaluate(request(ATTACKER)).isRejected() ? 0 : 1;
			}
			if (i % 10_000 == 0) {
				maxEntries = Math.max(maxEntries, store.stats().entries());
			}
		}
		BucketStoreStats afterChurn = store.stats();
		maxEntries = Math.max(maxEntries, afterChurn.entries());
		long heapFull = heapAfterGc();
		steady(limiter, after);
		// Idle buckets are forgotten once they would be full again (2 s at 20 rps), after the
		// store's 2 s margin and a step of Caffeine's timer wheel (about 1 s).
		this.clock.advance(Duration.ofSeconds(6));
		BucketStoreStats idle = store.stats();
		long heapIdle = heapAfterGc();

		Figures.record("A4 bucket explosion", "%,d distinct addresses through a store capped at %,d: max entries %,d, "
				+ "evictions %,d; attacker spent %d then got %d of %,d probes admitted; entries after idle expiry %,d",
				churn, MAXIMUM_ENTRIES, maxEntries, afterChurn.evictions(), spent, attackerAdmitted, churn / 100,
				idle.entries());
		Figures.record("A4 heap after GC", "before churn %.1f MiB, store full %.1f MiB (+%.1f MiB, ~%d bytes/bucket), "
				+ "after idle expiry %.1f MiB", mib(heapBefore), mib(heapFull), mib(heapFull - heapBefore),
				(heapFull - heapBefore) / Math.max(1, afterChurn.entries()), mib(heapIdle));
		Figures.record("A4 decision latency (us, p50/p99/p99.9)",
				"before %.2f/%.2f/%.2f, during churn %.2f/%.2f/%.2f, after %.2f/%.2f/%.2f", p(before, 50),
				p(before, 99), p(before, 99.9), p(during, 50), p(during, 99), p(during, 99.9), p(after, 50),
				p(after, 99), p(after, 99.9));

		assertThat(maxEntries).isLessThanOrEqualTo(MAXIMUM_ENTRIES);
		// The clock stands still, so no first request is ever refilled: once the doorkeeper's
		// slots hold first requests, every new address gets a bucket.
		assertThat(afterChurn.entries() + afterChurn.evictions()).isGreaterThanOrEqualTo(churn - DOORKEEPER_SLOTS);
		assertThat(spent).isEqualTo(40);
		assertThat(attackerAdmitted).isZero();
		assertThat(limiter.evaluate(request(ATTACKER)).isRejected()).isFalse(); // refilled while idle, as it should
		assertThat(idle.entries()).isLessThanOrEqualTo(1);
	}

	private RateLimiter limiter(BucketStore store) {
		PolicySettings settings = PolicySettings.of(BigDecimal.TEN, BigDecimal.valueOf(2), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(
				() -> List.of(new PolicyRow("1", PRODUCTS.toString(), null, BigDecimal.valueOf(20), null)), settings,
				this.clock);
		policies.reload();
		return RateLimiter.builder((request) -> PRODUCTS, policies).timeSource(this.clock).buckets(store).build();
	}

	/**
	 * Requests from a steady population of clients, round robin; returns each decision's
	 * latency in nanoseconds into the array.
	 */
	private static void steady(RateLimiter limiter, long[] nanos) {
		for (int i = 0; i < nanos.length; i++) {
			CoreRequest request = request("10.1." + (i % STEADY_CLIENTS / 250) + "." + (i % STEADY_CLIENTS % 250 + 1));
			long start = System.nanoTime();
			limiter.evaluate(request);
			nanos[i] = System.nanoTime() - start;
		}
	}

	private static CoreRequest request(String from) {
		return CoreRequest.of("GET", "/api/products", from);
	}

	/** The i-th invented address, all distinct, in 11.0.0.0/8 and onwards. */
	private static String address(int i) {
		int n = i + 1;
		return (11 + (n >>> 24)) + "." + ((n >>> 16) & 0xff) + "." + ((n >>> 8) & 0xff) + "." + (n & 0xff);
	}

	private static long heapAfterGc() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static double mib(long bytes) {
		return bytes / (1024.0 * 1024.0);
	}

	private static double p(long[] nanos, double percentile) {
		return Figures.percentileMicros(nanos, percentile);
	}

}
