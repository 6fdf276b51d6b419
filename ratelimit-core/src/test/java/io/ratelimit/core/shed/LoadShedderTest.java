package io.ratelimit.core.shed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LoadShedderTest {

	private static final EndpointTemplate PAYMENTS = EndpointTemplate.parse("POST /api/payments");

	private static final EndpointTemplate ORDERS = EndpointTemplate.parse("GET /api/orders");

	private static final EndpointTemplate REPORTS = EndpointTemplate.parse("GET /api/reports");

	private static final EndpointPriorities PRIORITIES = EndpointPriorities
		.of(Map.of(PAYMENTS, Priority.CRITICAL, REPORTS, Priority.SHEDDABLE));

	private final FakeTimeSource time = new FakeTimeSource();

	@Test
	void acquireWhenLimitFullThenShedsSheddableFirstAndKeepsCriticalReserve() {
		LoadShedder shedder = fixed(10).build();
		List<Permit> held = new ArrayList<>();
		held.addAll(acquireAll(shedder, REPORTS, 6));
		assertThat(shedder.acquire(REPORTS)).isNull();
		held.addAll(acquireAll(shedder, ORDERS, 2));
		assertThat(shedder.acquire(ORDERS)).isNull();
		assertThat(shedder.acquire(REPORTS)).isNull();
		held.addAll(acquireAll(shedder, PAYMENTS, 2));
		assertThat(shedder.acquire(PAYMENTS)).isNull();
		assertThat(shedder.inFlight()).isEqualTo(10);
		assertThat(shedder.shed(Priority.SHEDDABLE)).isEqualTo(2);
		assertThat(shedder.shed(Priority.DEFAULT)).isEqualTo(1);
		assertThat(shedder.shed(Priority.CRITICAL)).isEqualTo(1);
		assertThat(shedder.isShedding()).isTrue();
		held.forEach((permit) -> permit.release(Completion.IGNORED));
		assertThat(shedder.inFlight()).isZero();
		assertThat(shedder.acquire(REPORTS)).isNotNull();
	}

	@Test
	void acquireWhenSheddableFillsItsShareThenCriticalStillHasItsReserve() {
		LoadShedder shedder = fixed(10).build();
		acquireAll(shedder, REPORTS, 6);
		acquireAll(shedder, PAYMENTS, 4);
		assertThat(shedder.acquire(PAYMENTS)).isNull();
		assertThat(shedder.ceiling(Priority.SHEDDABLE)).isEqualTo(6);
		assertThat(shedder.ceiling(Priority.DEFAULT)).isEqualTo(8);
		assertThat(shedder.ceiling(Priority.CRITICAL)).isEqualTo(10);
	}

	@Test
	void acquireWhenUnknownEndpointThenIsSheddable() {
		LoadShedder shedder = fixed(10).build();
		assertThat(shedder.priorityOf(EndpointTemplate.UNKNOWN)).isEqualTo(Priority.SHEDDABLE);
		assertThat(shedder.priorityOf(EndpointTemplate.SERVED_UNKNOWN)).isEqualTo(Priority.SHEDDABLE);
		acquireAll(shedder, EndpointTemplate.UNKNOWN, 6);
		assertThat(shedder.acquire(EndpointTemplate.UNKNOWN)).isNull();
	}

	@Test
	void ofWhenReservedTemplateListedThenRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> EndpointPriorities.of(Map.of(EndpointTemplate.UNKNOWN, Priority.CRITICAL)))
			.withMessageContaining("'UNKNOWN'");
	}

	@Test
	void acquireWhenShadowThenAdmitsAndCounts() {
		LoadShedder shedder = fixed(10).shadow(true).build();
		acquireAll(shedder, REPORTS, 6);
		Permit over = shedder.acquire(REPORTS);
		assertThat(over).isNotNull();
		assertThat(shedder.shed(Priority.SHEDDABLE)).isEqualTo(1);
		assertThat(shedder.inFlight()).isEqualTo(7);
	}

	@Test
	void releaseWhenCalledTwiceThenGivesThePlaceBackOnce() {
		LoadShedder shedder = fixed(10).build();
		Permit first = shedder.acquire(ORDERS);
		shedder.acquire(ORDERS);
		first.release(Completion.SUCCESS);
		first.release(Completion.IGNORED);
		assertThat(shedder.inFlight()).isEqualTo(1);
	}

	@Test
	void acquireWhenManyThreadsRaceThenNoClassExceedsItsCeiling() throws Exception {
		LoadShedder shedder = fixed(10).build();
		int threads = 16;
		AtomicInteger holding = new AtomicInteger();
		AtomicInteger maxHolding = new AtomicInteger();
		AtomicInteger admitted = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				runs.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < 20_000; i++) {
						Permit permit = shedder.acquire(REPORTS);
						if (permit != null) {
							admitted.incrementAndGet();
							maxHolding.accumulateAndGet(holding.incrementAndGet(), Math::max);
							holding.decrementAndGet();
							permit.release(Completion.IGNORED);
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(maxHolding.get()).isLessThanOrEqualTo(6);
		assertThat(admitted.get()).isPositive();
		assertThat(shedder.inFlight()).isZero();
	}

	@Test
	void releaseWhenRequestsDoNotQueueThenLimitGrowsAndWhenTheyQueueThenItFalls() {
		LoadShedder shedder = LoadShedder.builder(PRIORITIES).time(this.time).limits(4, 20, 200).build();
		for (int round = 0; round < 5; round++) {
			roundTrip(shedder, PAYMENTS, shedder.currentLimit(), Duration.ofMillis(10));
		}
		int grown = shedder.currentLimit();
		assertThat(grown).isGreaterThan(20);
		assertThat(shedder.noLoadLatency()).isEqualTo(Duration.ofMillis(10));
		for (int round = 0; round < 5; round++) {
			roundTrip(shedder, PAYMENTS, shedder.currentLimit(), Duration.ofMillis(100));
		}
		assertThat(shedder.currentLimit()).isLessThan(grown);
	}

	@Test
	void releaseWhenIgnoredThenLatencyIsNoSample() {
		LoadShedder shedder = LoadShedder.builder(PRIORITIES).time(this.time).limits(4, 20, 200).build();
		roundTrip(shedder, ORDERS, 16, Duration.ofNanos(1), Completion.IGNORED);
		assertThat(shedder.noLoadLatency()).isNull();
		assertThat(shedder.currentLimit()).isEqualTo(20);
	}

	@Test
	void releaseWhenPathServedByNoHandlerThenLatencyIsNoSample() {
		// A static file or a 404 answers in microseconds whenever anyone asks: taken as the
		// no-load latency, it would make every real request look queued.
		LoadShedder shedder = LoadShedder.builder(PRIORITIES).time(this.time).limits(4, 20, 200).build();
		roundTrip(shedder, EndpointTemplate.UNKNOWN, 1, Duration.ofNanos(50_000));
		roundTrip(shedder, EndpointTemplate.SERVED_UNKNOWN, 1, Duration.ofNanos(50_000));
		assertThat(shedder.noLoadLatency()).isNull();
		for (int round = 0; round < 5; round++) {
			roundTrip(shedder, ORDERS, 12, Duration.ofMillis(20));
		}
		assertThat(shedder.noLoadLatency()).isEqualTo(Duration.ofMillis(20));
		assertThat(shedder.currentLimit()).isGreaterThanOrEqualTo(20);
	}

	@Test
	void acquireWhenLimitIsSmallThenEveryClassKeepsAPlace() {
		LoadShedder shedder = fixed(1).build();
		Permit sheddable = shedder.acquire(REPORTS);
		assertThat(sheddable).as("a limit of 1 leaves the sheddable class its one place").isNotNull();
		sheddable.release(Completion.IGNORED);
		assertThat(shedder.ceiling(Priority.DEFAULT)).isEqualTo(1);
		assertThat(shedder.ceiling(Priority.SHEDDABLE)).isEqualTo(1);
		assertThat(shedder.acquire(ORDERS)).isNotNull();
		assertThat(shedder.acquire(PAYMENTS)).as("the limit is full").isNull();
	}

	@Test
	void releaseWhenDroppedThenLimitFalls() {
		LoadShedder shedder = LoadShedder.builder(PRIORITIES).time(this.time).limits(4, 20, 200).build();
		roundTrip(shedder, ORDERS, 16, Duration.ofMillis(10));
		int before = shedder.currentLimit();
		roundTrip(shedder, ORDERS, 16, Duration.ofSeconds(30), Completion.DROPPED);
		assertThat(shedder.currentLimit()).isLessThan(before);
	}

	@Test
	void acquireWhenProbeDueThenLimitIsPinnedAndFreshMinimumReplacesAStaleOne() {
		LoadShedder shedder = probing().build();
		// A lucky sample sets a no-load latency the service no longer reaches.
		roundTrip(shedder, ORDERS, 1, Duration.ofMillis(2));
		for (int round = 0; round < 20; round++) {
			roundTrip(shedder, PAYMENTS, shedder.currentLimit(), Duration.ofMillis(40));
		}
		assertThat(shedder.noLoadLatency()).isEqualTo(Duration.ofMillis(2));
		this.time.advance(Duration.ofSeconds(60));
		List<Permit> probe = acquireAll(shedder, PAYMENTS, 4);
		assertThat(shedder.isProbing()).isTrue();
		assertThat(shedder.currentLimit()).isEqualTo(4);
		assertThat(shedder.acquire(PAYMENTS)).isNull();
		this.time.advance(Duration.ofMillis(20));
		probe.forEach((permit) -> permit.release(Completion.SUCCESS));
		assertThat(shedder.isProbing()).isTrue();
		roundTrip(shedder, PAYMENTS, 1, Duration.ofMillis(25));
		assertThat(shedder.isProbing()).isFalse();
		assertThat(shedder.noLoadLatency()).isEqualTo(Duration.ofMillis(20));
	}

	@Test
	void acquireWhenProbeLimitSetThenProbePinsToItRatherThanTheFloor() {
		LoadShedder shedder = probing().limits(8, 20, 200).probeLimit(2).build();
		roundTrip(shedder, ORDERS, 1, Duration.ofMillis(20));
		this.time.advance(Duration.ofSeconds(60));
		acquireAll(shedder, PAYMENTS, 2);
		assertThat(shedder.isProbing()).isTrue();
		assertThat(shedder.currentLimit()).isEqualTo(2);
		assertThat(shedder.acquire(PAYMENTS)).isNull();
	}

	@Test
	void releaseWhenRequestAdmittedBeforeProbeCompletesDuringItThenItIsNoProbeSample() {
		LoadShedder shedder = probing().build();
		roundTrip(shedder, ORDERS, 1, Duration.ofMillis(20));
		List<Permit> queued = acquireAll(shedder, ORDERS, 12);
		this.time.advance(Duration.ofSeconds(60));
		assertThat(shedder.acquire(PAYMENTS)).as("the probe waits for the queue to drain").isNull();
		assertThat(shedder.isProbing()).isTrue();
		queued.forEach((permit) -> permit.release(Completion.SUCCESS));
		assertThat(shedder.isProbing()).isTrue();
	}

	@Test
	void acquireWhenProbeRunsOutOfTimeThenLimitIsReleasedAndMinimumKept() {
		LoadShedder shedder = probing().build();
		roundTrip(shedder, ORDERS, 1, Duration.ofMillis(20));
		this.time.advance(Duration.ofSeconds(60));
		assertThat(shedder.acquire(ORDERS)).isNotNull();
		assertThat(shedder.isProbing()).isTrue();
		this.time.advance(Duration.ofSeconds(2));
		assertThat(shedder.acquire(ORDERS)).isNotNull();
		assertThat(shedder.isProbing()).isFalse();
		assertThat(shedder.noLoadLatency()).isEqualTo(Duration.ofMillis(20));
	}

	@Test
	void acquireWhenJitterDrawnThenProbeWaitsTheIntervalPlusItsShare() {
		LoadShedder shedder = LoadShedder.builder(PRIORITIES)
			.time(this.time)
			.limits(4, 20, 200)
			.probe(Duration.ofSeconds(60), 0.5, 5, Duration.ofSeconds(2))
			.random(() -> 0.5)
			.build();
		this.time.advance(Duration.ofSeconds(74));
		shedder.acquire(ORDERS);
		assertThat(shedder.isProbing()).isFalse();
		this.time.advance(Duration.ofSeconds(1));
		shedder.acquire(ORDERS);
		assertThat(shedder.isProbing()).isTrue();
	}

	@Test
	void builderWhenSettingOutOfRangeThenNamesIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> LoadShedder.builder(PRIORITIES).limits(0, 1, 1))
			.withMessageContaining("min-limit");
		assertThatIllegalArgumentException().isThrownBy(() -> LoadShedder.builder(PRIORITIES).limits(4, 300, 200))
			.withMessageContaining("initial-limit");
		assertThatIllegalArgumentException().isThrownBy(() -> LoadShedder.builder(PRIORITIES).reserves(0.6, 0.4))
			.withMessageContaining("below 1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LoadShedder.builder(PRIORITIES).retryAfter(Duration.ZERO))
			.withMessageContaining("retry-after");
		assertThat(LoadShedder.builder(PRIORITIES).retryAfter(Duration.ofMillis(1500)).build().retryAfterSeconds())
			.isEqualTo(2);
	}

	private LoadShedder.Builder fixed(int limit) {
		return LoadShedder.builder(PRIORITIES).time(this.time).limits(limit, limit, limit);
	}

	private LoadShedder.Builder probing() {
		return LoadShedder.builder(PRIORITIES)
			.time(this.time)
			.limits(4, 20, 200)
			.probe(Duration.ofSeconds(60), 0.15, 5, Duration.ofSeconds(2))
			.random(() -> 0);
	}

	private static List<Permit> acquireAll(LoadShedder shedder, EndpointTemplate endpoint, int count) {
		List<Permit> permits = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Permit permit = shedder.acquire(endpoint);
			assertThat(permit).as("permit %d of %s", i + 1, endpoint).isNotNull();
			permits.add(permit);
		}
		return permits;
	}

	private void roundTrip(LoadShedder shedder, EndpointTemplate endpoint, int concurrency, Duration latency) {
		roundTrip(shedder, endpoint, concurrency, latency, Completion.SUCCESS);
	}

	/** Holds {@code concurrency} requests for {@code latency}, then completes them all. */
	private void roundTrip(LoadShedder shedder, EndpointTemplate endpoint, int concurrency, Duration latency,
			Completion completion) {
		List<Permit> permits = acquireAll(shedder, endpoint, concurrency);
		this.time.advance(latency);
		permits.forEach((permit) -> permit.release(completion));
	}

}
