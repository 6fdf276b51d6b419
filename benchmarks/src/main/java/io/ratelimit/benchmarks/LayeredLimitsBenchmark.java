package io.ratelimit.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.EndpointGroups;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One decision under layered limits against the same decision under its endpoint's own
 * limit alone: one client sending one request again and again (as
 * {@code RateLimiterBenchmark.evaluateOneClient}), to a route that has a per-second policy
 * row of its own. With {@code limits=3} two layered rows apply besides: an API-wide hourly
 * count of requests, and points per minute for a group holding the route. Every limit is so
 * large that every request is admitted, so each decision takes the full path through three
 * buckets. The endpoint resolver hands back the same template instance every time, as the
 * starter's resolver does for a request it has seen before.
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar LayeredLimitsBenchmark -bm avgt -tu ns -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Thread)
public class LayeredLimitsBenchmark {

	/** The limits a request is charged to: its endpoint's own, or that and two layered ones. */
	@Param({ "1", "3" })
	int limits;

	RateLimiter limiter;

	RateLimitRequest request;

	@Setup
	public void setUp() {
		List<ApiTemplates.Route> routes = ApiTemplates.of(RateLimiterBenchmark.TEMPLATES);
		ApiTemplates.Route route = routes.get(0);
		List<PolicyRow> rows = new ArrayList<>();
		rows.add(new PolicyRow("own", route.template().toString(), null, PolicySettings.MAXIMUM_RPS, "ENFORCE"));
		if (this.limits == 3) {
			rows.add(PolicyRow.layered("hourly", "default", null, "hourly", "API", null, 1_000_000_000L, "PT1H",
					"REQUESTS"));
			rows.add(PolicyRow.layered("points", "default", null, "points", "GROUP", "writes", 60_000_000L, "PT1M",
					"POINTS"));
		}
		PolicySettings settings = PolicySettings
			.of(BigDecimal.valueOf(100), BigDecimal.TEN, PolicySettings.MAXIMUM_BURST_FACTOR)
			.withGroups(EndpointGroups.of(Map.of("writes", Set.<EndpointTemplate>of(route.template()))));
		ReloadablePolicies policies = new ReloadablePolicies(() -> rows, settings, TimeSource.system());
		Checks.require(policies.reload().failure() == null && policies.current().rejected().isEmpty(),
				"the policy rows to load");
		// One template, handed back every time, as the endpoint resolver's cache of
		// remembered templates does: building it per call would time the fixture.
		EndpointTemplate template = route.template();
		this.limiter = RateLimiter.builder((request) -> template, policies).build();
		this.request = new SimpleRequest(route.method(), route.samplePath(), Limiters.client(0));
		// The store's doorkeeper makes a bucket on a key's second request: warm every key.
		Decision decision = null;
		for (int i = 0; i < 100_000; i++) {
			decision = this.limiter.evaluate(this.request);
		}
		Checks.require(decision != null && decision.outcome() == Decision.Outcome.ALLOWED
				&& decision.quotas().size() == this.limits
				&& this.limiter.buckets().stats().entries() == this.limits, "one bucket per limit, admitted");
	}

	@TearDown
	public void checkNothingRejected() {
		Checks.require(this.limiter.evaluate(this.request).outcome() == Decision.Outcome.ALLOWED,
				"the limits never to be reached");
	}

	@Benchmark
	public Decision evaluate() {
		return this.limiter.evaluate(this.request);
	}

}
