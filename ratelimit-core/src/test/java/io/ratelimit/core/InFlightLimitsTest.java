package io.ratelimit.core;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.concurrency.Permit;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Limits of requests in flight through {@link RateLimiter#evaluate}: a permit per admitted
 * request, held on the decision until released, all or nothing with the rate limits.
 */
class InFlightLimitsTest {

	private static final EndpointTemplate REPOS = EndpointTemplate.of("GET", "/api/repos");

	private static final EndpointTemplate STATUS = EndpointTemplate.of("GET", "/api/status");

	private static final EndpointResolver ENDPOINTS = (request) -> switch (request.method() + " " + request.path()) {
		case "GET /api/repos" -> REPOS;
		case "GET /api/status" -> STATUS;
		default -> EndpointTemplate.UNKNOWN;
	};

	private final FakeTimeSource time = new FakeTimeSource();

	private final List<PolicyRow> rows = new ArrayList<>();

	private LocalPermitStore permits = LocalPermitStore.create(1_000);

	private RateLimiter limiter() {
		PolicySettings settings = PolicySettings.of(new BigDecimal("1000"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(() -> this.rows, settings, this.time);
		assertThat(policies.reload().succeeded()).isTrue();
		assertThat(policies.current().rejected()).isEmpty();
		return RateLimiter.builder(ENDPOINTS, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(10_000, this.time))
			.permits(this.permits)
			.build();
	}

	private void inFlight(String endpoint, @Nullable String mode, String name, String appliesTo, long count) {
		this.rows.add(new PolicyRow(String.valueOf(this.rows.size() + 1), endpoint, null, null, mode, null, name,
				appliesTo, null, count, null, null, "IN_FLIGHT"));
	}

	private static Map<String, String> headers(Decision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		decision.forEachHeader(headers::put);
		return headers;
	}

	@Test
	void evaluateWhenCallerHoldsItsLimitThenTheNextIsRefusedUntilOneIsReleased() {
		inFlight("default", null, "in-flight", "API", 2);
		RateLimiter limiter = limiter();
		TestRequest request = TestRequest.get("/api/repos").from("198.51.100.1");

		Decision first = limiter.evaluate(request);
		Decision second = limiter.evaluate(TestRequest.get("/api/status").from("198.51.100.1"));
		Decision third = limiter.evaluate(request);

		assertThat(first.isRejected()).isFalse();
		assertThat(second.isRejected()).isFalse();
		assertThat(third.isRejected()).isTrue();
		assertThat(third.permits()).isNull();
		assertThat(third.limitName()).isEqualTo("in-flight");
		assertThat(headers(third)).containsEntry("Retry-After", "1")
			.containsEntry("RateLimit-Policy", "\"in-flight\";q=2;qu=\"concurrent-requests\"")
			.containsEntry("RateLimit", "\"in-flight\";r=0;t=1");
		assertThat(limiter.evaluate(TestRequest.get("/api/repos").from("198.51.100.2")).isRejected()).isFalse();
		first.permits().release();
		assertThat(limiter.evaluate(request).isRejected()).isFalse();
	}

	@Test
	void evaluateWhenAdmittedThenFieldsListTheInFlightLimitAfterTheBuckets() {
		inFlight("default", null, "in-flight", "API", 3);
		RateLimiter limiter = limiter();

		Decision admitted = limiter.evaluate(TestRequest.get("/api/repos").from("198.51.100.3"));

		assertThat(headers(admitted))
			.containsEntry("RateLimit-Policy", "\"default\";q=2000;w=2, \"in-flight\";q=3;qu=\"concurrent-requests\"")
			.containsEntry("RateLimit", "\"default\";r=1999;t=1, \"in-flight\";r=2;t=0");
		assertThat(this.permits.permitsHeld()).isEqualTo(1);
		admitted.permits().release();
		admitted.permits().release();
		assertThat(this.permits.permitsHeld()).isZero();
		assertThat(this.permits.keys()).isZero();
	}

	@Test
	void evaluateWhenRefusedByInFlightLimitThenNoRateTokenIsSpent() {
		inFlight("default", null, "in-flight", "API", 1);
		this.rows.add(new PolicyRow("9", "GET /api/repos", null, new BigDecimal("2"), null));
		RateLimiter limiter = limiter();
		TestRequest request = TestRequest.get("/api/repos").from("198.51.100.4");
		Decision holding = limiter.evaluate(request);
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.evaluate(request).isRejected()).isTrue();
		}
		holding.permits().release();

		// Capacity 4 (rate 2 x burst 2): the first took one, the ten refused none.
		assertThat(headers(limiter.evaluate(request))).containsEntry("RateLimit",
				"\"GET /api/repos\";r=2;t=1, \"in-flight\";r=0;t=1");
	}

	@Test
	void evaluateWhenRefusedByARateLimitThenNoPermitIsHeld() {
		inFlight("default", null, "in-flight", "API", 1);
		this.rows.add(new PolicyRow("9", "GET /api/repos", null, new BigDecimal("0.5"), null));
		RateLimiter limiter = limiter();
		TestRequest request = TestRequest.get("/api/repos").from("198.51.100.5");
		limiter.evaluate(request).permits().release();

		Decision refused = limiter.evaluate(request);

		assertThat(refused.isRejected()).isTrue();
		assertThat(refused.limitName()).isEqualTo("GET /api/repos");
		assertThat(this.permits.permitsHeld()).isZero();
		assertThat(limiter.evaluate(TestRequest.get("/api/status").from("198.51.100.5")).isRejected()).isFalse();
	}

	@Test
	void evaluateWhenShadowInFlightLimitIsFullThenThePassesAreCountedAndItsPermitsStillReleased() {
		inFlight("default", "SHADOW", "in-flight", "API", 1);
		RateLimiter limiter = limiter();
		TestRequest request = TestRequest.get("/api/repos").from("198.51.100.6");

		Decision first = limiter.evaluate(request);
		Decision second = limiter.evaluate(request);

		assertThat(first.outcome()).isEqualTo(Decision.Outcome.ALLOWED);
		assertThat(second.outcome()).isEqualTo(Decision.Outcome.SHADOW_REJECTED);
		assertThat(headers(second)).doesNotContainKey("Retry-After")
			.containsEntry("RateLimit-Policy", "\"default\";q=2000;w=2");
		first.permits().release();
		second.permits().release();
		assertThat(this.permits.permitsHeld()).isZero();
	}

	@Test
	void evaluateWhenPermitStoreFailsHalfwayThenThePermitsTakenAreGivenBackAndTheFailureSurfaces() {
		inFlight("default", null, "in-flight", "API", 5);
		inFlight("GET /api/repos", null, "repos-in-flight", "ENDPOINT", 5);
		PermitStore failingSecond = new PermitStore() {

			private int calls;

			@Override
			public @Nullable Permit tryAcquire(BucketKey key, int limit) {
				if (++this.calls % 2 == 0) {
					throw new IllegalStateException("store down");
				}
				return InFlightLimitsTest.this.permits.tryAcquire(key, limit);
			}

			@Override
			public long permitsHeld() {
				return 0;
			}

			@Override
			public long keys() {
				return 0;
			}

			@Override
			public long refusedForRoom() {
				return 0;
			}

		};
		PolicySettings settings = PolicySettings.of(new BigDecimal("1000"), new BigDecimal("2"), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(() -> this.rows, settings, this.time);
		policies.reload();
		RateLimiter limiter = RateLimiter.builder(ENDPOINTS, policies).permits(failingSecond).build();

		assertThatIllegalStateException()
			.isThrownBy(() -> limiter.evaluate(TestRequest.get("/api/repos").from("198.51.100.7")))
			.withMessage("store down");
		assertThat(this.permits.permitsHeld()).isZero();
	}

	@Test
	void localStoreWhenManyThreadsRaceForOneKeyThenNeverMoreThanTheLimitAreHeld() throws Exception {
		LocalPermitStore store = LocalPermitStore.create(10);
		BucketKey key = new BucketKey(1, 2);
		ExecutorService pool = Executors.newFixedThreadPool(8);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<@Nullable Permit>> taken = new ArrayList<>();
			for (int i = 0; i < 64; i++) {
				taken.add(pool.submit(() -> {
					start.await();
					return store.tryAcquire(key, 5);
				}));
			}
			start.countDown();
			int held = 0;
			for (Future<@Nullable Permit> permit : taken) {
				held += (permit.get(10, TimeUnit.SECONDS) != null) ? 1 : 0;
			}
			assertThat(held).isEqualTo(5);
			assertThat(store.permitsHeld()).isEqualTo(5);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void localStoreWhenFullOfCallersThenANewCallerIsRefusedAndCountedUntilOneLeaves() {
		LocalPermitStore store = LocalPermitStore.create(2);
		Permit first = store.tryAcquire(new BucketKey(0, 1), 1);
		store.tryAcquire(new BucketKey(0, 2), 1);

		assertThat(store.tryAcquire(new BucketKey(0, 3), 1)).isNull();
		assertThat(store.refusedForRoom()).isEqualTo(1);
		first.release();
		assertThat(store.tryAcquire(new BucketKey(0, 3), 1)).isNotNull();
		assertThat(store.keys()).isEqualTo(2);
	}

}
