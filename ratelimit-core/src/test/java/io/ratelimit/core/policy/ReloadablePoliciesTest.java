package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReloadablePoliciesTest {

	private static final EndpointTemplate USERS = EndpointTemplate.of("GET", "/api/users/*");

	private static final EndpointTemplate ORDERS = EndpointTemplate.of("POST", "/api/orders");

	private static final PolicySettings SETTINGS = PolicySettings.of(new BigDecimal("7"), new BigDecimal("3"),
			BigDecimal.ONE);

	private final FakeTimeSource time = new FakeTimeSource();

	private final AtomicReference<List<PolicyRow>> table = new AtomicReference<>(List.of());

	private final AtomicBoolean databaseDown = new AtomicBoolean();

	private final ReloadablePolicies policies = new ReloadablePolicies(() -> {
		if (this.databaseDown.get()) {
			throw new SQLException("Connection refused");
		}
		return this.table.get();
	}, SETTINGS, this.time);

	private static List<PolicyRow> generation(int n) {
		return List.of(new PolicyRow("u" + n, "GET /api/users/*", null, BigDecimal.valueOf(n), null),
				new PolicyRow("o" + n, "POST /api/orders", null, BigDecimal.valueOf(n), null));
	}

	@Test
	void currentWhenNeverLoadedThenBuiltInPolicies() {
		assertThat(this.policies.current().version()).isZero();
		assertThat(this.policies.current().resolve(USERS, null).isBuiltIn()).isTrue();
	}

	@Test
	void reloadWhenRowsChangeThenNewSnapshotWithNextVersionAndLoadTime() {
		this.table.set(generation(1));
		this.policies.reload();
		this.time.advanceMillis(5000);
		this.table.set(generation(2));

		PolicyReloadResult result = this.policies.reload();

		assertThat(result.succeeded()).isTrue();
		assertThat(result.snapshot()).isSameAs(this.policies.current());
		assertThat(result.snapshot().version()).isEqualTo(2);
		assertThat(result.snapshot().loadedAt()).isEqualTo(this.time.now());
		assertThat(this.policies.current().resolve(USERS, null).origin()).isEqualTo("row u2");
	}

	@Test
	void reloadWhenSourceFailsThenKeepsLastGoodSnapshotAndReportsFailure() {
		this.table.set(generation(1));
		this.policies.reload();
		PolicySnapshot good = this.policies.current();
		this.databaseDown.set(true);

		PolicyReloadResult result = this.policies.reload();

		assertThat(result.succeeded()).isFalse();
		assertThat(result.failure()).isEqualTo("SQLException: Connection refused");
		assertThat(this.policies.current()).isSameAs(good);
		assertThat(this.policies.lastFailure()).isEqualTo("SQLException: Connection refused");

		this.databaseDown.set(false);
		assertThat(this.policies.reload().succeeded()).isTrue();
		assertThat(this.policies.lastFailure()).isNull();
	}

	@Test
	void failedReloadsWhenSourceFailsThenCountsFailuresOnlyAndVersionCountsSuccesses() {
		assertThat(this.policies.failedReloads()).isZero();
		this.databaseDown.set(true);
		this.policies.reload();
		this.policies.reload();
		this.databaseDown.set(false);

		this.policies.reload();

		assertThat(this.policies.failedReloads()).isEqualTo(2);
		assertThat(this.policies.current().version()).isEqualTo(1);
	}

	@Test
	void reloadWhenTableHoldsMoreRowsThanMaximumThenKeepsLastGoodSnapshotAndStopsReading() {
		List<PolicyRow> read = new ArrayList<>();
		ReloadablePolicies bounded = new ReloadablePolicies(new PolicySource() {

			@Override
			public List<PolicyRow> load() {
				return ReloadablePoliciesTest.this.table.get();
			}

			@Override
			public void read(Consumer<? super PolicyRow> reader) {
				for (PolicyRow row : ReloadablePoliciesTest.this.table.get()) {
					read.add(row);
					reader.accept(row);
				}
			}

		}, SETTINGS, 2, this.time);
		this.table.set(generation(1));
		bounded.reload();
		PolicySnapshot good = bounded.current();
		this.table.set(tenants(5));
		read.clear();

		PolicyReloadResult result = bounded.reload();

		assertThat(result.succeeded()).isFalse();
		assertThat(result.failure()).startsWith("IllegalStateException: the table holds more than 2 policy rows "
				+ "(ratelimit.policy.maximum-policies)");
		assertThat(bounded.current()).isSameAs(good);
		assertThat(bounded.overLimit()).isTrue();
		assertThat(bounded.maximumPolicies()).isEqualTo(2);
		assertThat(read).hasSize(3);
	}

	@Test
	void reloadWhenTableBackUnderMaximumThenLoadsAndNoLongerOverLimit() {
		ReloadablePolicies bounded = new ReloadablePolicies(this.table::get, SETTINGS, 2, this.time);
		this.table.set(tenants(3));
		bounded.reload();
		this.table.set(tenants(2));

		PolicyReloadResult result = bounded.reload();

		assertThat(result.succeeded()).isTrue();
		assertThat(bounded.overLimit()).isFalse();
		assertThat(bounded.current().policies()).hasSize(2);
	}

	@Test
	void reloadWhenSourceFailsWhileOverLimitThenStillOverLimit() {
		ReloadablePolicies bounded = new ReloadablePolicies(() -> {
			if (this.databaseDown.get()) {
				throw new SQLException("Connection refused");
			}
			return this.table.get();
		}, SETTINGS, 2, this.time);
		this.table.set(tenants(3));
		bounded.reload();
		this.databaseDown.set(true);

		bounded.reload();

		assertThat(bounded.overLimit()).isTrue();
		assertThat(bounded.lastFailure()).isEqualTo("SQLException: Connection refused");
	}

	private static List<PolicyRow> tenants(int count) {
		List<PolicyRow> rows = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			rows.add(new PolicyRow("t" + i, "GET /api/users/*", "tenant-" + i, BigDecimal.TEN, null));
		}
		return rows;
	}

	@Test
	void reloadWhenTableEmptiedThenBuiltInDefaultsNotNoLimit() {
		this.table.set(generation(1));
		this.policies.reload();
		this.table.set(List.of());

		this.policies.reload();

		Policy policy = this.policies.current().resolve(USERS, null);
		assertThat(policy.isBuiltIn()).isTrue();
		assertThat(policy.rps()).isEqualByComparingTo("7");
	}

	@Test
	void reloadWhileReadersResolveThenEveryReaderSeesOneWholeGeneration() throws Exception {
		this.table.set(generation(1));
		this.policies.reload();
		int readers = 4;
		ExecutorService pool = Executors.newFixedThreadPool(readers + 1);
		AtomicBoolean stop = new AtomicBoolean();
		CountDownLatch started = new CountDownLatch(readers);
		try {
			List<Future<Long>> reads = new ArrayList<>();
			for (int r = 0; r < readers; r++) {
				reads.add(pool.submit(() -> {
					started.countDown();
					long checked = 0;
					while (!stop.get()) {
						// Both rows of one snapshot must come from the same generation.
						PolicySnapshot snapshot = this.policies.current();
						BigDecimal users = snapshot.resolve(USERS, null).rps();
						BigDecimal orders = snapshot.resolve(ORDERS, null).rps();
						assertThat(users).isEqualByComparingTo(orders);
						assertThat(snapshot.version()).isEqualTo(users.longValue());
						checked++;
					}
					return checked;
				}));
			}
			started.await();
			Future<?> writer = pool.submit(() -> {
				for (int n = 2; n <= 2000; n++) {
					this.table.set(generation(n));
					this.policies.reload();
				}
			});
			writer.get(60, TimeUnit.SECONDS);
			stop.set(true);
			for (Future<Long> read : reads) {
				assertThat(read.get(10, TimeUnit.SECONDS)).isPositive();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.policies.current().version()).isEqualTo(2000);
	}

	@Test
	void reloadWhenCalledConcurrentlyThenEachReloadCountsOnce() throws Exception {
		this.table.set(generation(1));
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<PolicyReloadResult>> results = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				results.add(pool.submit(this.policies::reload));
			}
			for (Future<PolicyReloadResult> result : results) {
				assertThat(result.get(10, TimeUnit.SECONDS).succeeded()).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.policies.current().version()).isEqualTo(100);
	}

	@Test
	void reloadWhenListenersAddedThenEachToldEveryOutcomeInOrderAfterTheSwap() {
		List<PolicyReloadResult> told = new ArrayList<>();
		List<Long> currentWhenTold = new ArrayList<>();
		this.policies.addListener((result) -> {
			told.add(result);
			currentWhenTold.add(this.policies.current().version());
		});
		this.table.set(generation(1));

		PolicyReloadResult first = this.policies.reload();
		this.databaseDown.set(true);
		PolicyReloadResult failed = this.policies.reload();

		assertThat(told).containsExactly(first, failed);
		assertThat(currentWhenTold).containsExactly(1L, 1L);
		assertThat(told.get(1).succeeded()).isFalse();
	}

	@Test
	void reloadWhenListenerThrowsThenReloadSucceedsAndLaterListenersStillTold() {
		AtomicBoolean told = new AtomicBoolean();
		this.policies.addListener((result) -> {
			throw new IllegalStateException("broken listener");
		});
		this.policies.addListener((result) -> told.set(true));
		this.table.set(generation(1));

		PolicyReloadResult result = this.policies.reload();

		assertThat(result.succeeded()).isTrue();
		assertThat(this.policies.current().version()).isEqualTo(1);
		assertThat(told).isTrue();
	}

}
