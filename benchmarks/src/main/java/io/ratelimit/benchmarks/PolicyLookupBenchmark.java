package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.PolicySnapshot;
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
 * Policy lookup: {@link PolicySnapshot#resolve} over a snapshot of 202 rows on the 200
 * templates of {@link ApiTemplates}: a global row for each of the first 150 templates, a
 * row of its own for each of 50 tenants ({@code tenant-k} on template {@code k}), a global
 * {@code default} row and a {@code default} row for {@code tenant-0}.
 * <ul>
 * <li>{@code tenantRow}: a tenant on a template it has a row for; found in the first
 * link of the chain.</li>
 * <li>{@code endpointRow}: a tenant without a row of its own on a template with a global
 * row; found in the second link.</li>
 * <li>{@code defaultRow}: no tenant, on a template without rows; the global
 * {@code default} row, in the fourth link.</li>
 * </ul>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar PolicyLookupBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
@State(Scope.Benchmark)
public class PolicyLookupBenchmark {

	private PolicySnapshot snapshot;

	private EndpointTemplate endpoint;

	private EndpointTemplate unlistedEndpoint;

	@Setup
	public void setUp() {
		List<ApiTemplates.Route> routes = ApiTemplates.of(200);
		List<PolicyRow> rows = new ArrayList<>();
		for (int i = 0; i < 150; i++) {
			rows.add(new PolicyRow("global-" + i, routes.get(i).template().toString(), null, BigDecimal.valueOf(50 + i),
					"ENFORCE"));
		}
		for (int k = 0; k < 50; k++) {
			rows.add(new PolicyRow("tenant-" + k, routes.get(k).template().toString(), "tenant-" + k,
					BigDecimal.valueOf(500 + k), "ENFORCE"));
		}
		rows.add(new PolicyRow("default", "default", null, BigDecimal.valueOf(20), "ENFORCE"));
		rows.add(new PolicyRow("default-tenant-0", "default", "tenant-0", BigDecimal.valueOf(40), "ENFORCE"));
		PolicySettings settings = PolicySettings.of(BigDecimal.TEN, BigDecimal.ONE, BigDecimal.valueOf(2));
		this.snapshot = PolicySnapshot.of(rows, settings, 1, Instant.now());
		Checks.require(this.snapshot.policies().size() == 202, "202 valid rows, rejected: " + this.snapshot.rejected());
		this.endpoint = routes.get(7).template();
		this.unlistedEndpoint = routes.get(180).template();
		Checks.require("row tenant-7".equals(tenantRow().origin()), "the tenant row");
		Checks.require("row global-7".equals(endpointRow().origin()), "the endpoint's global row");
		Checks.require("row default".equals(defaultRow().origin()), "the default row");
	}

	@Benchmark
	public Policy tenantRow() {
		return this.snapshot.resolve(this.endpoint, "tenant-7");
	}

	@Benchmark
	public Policy endpointRow() {
		return this.snapshot.resolve(this.endpoint, "tenant-99");
	}

	@Benchmark
	public Policy defaultRow() {
		return this.snapshot.resolve(this.unlistedEndpoint, null);
	}

}
