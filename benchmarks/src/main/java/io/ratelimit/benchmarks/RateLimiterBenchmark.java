package io.ratelimit.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.autoconfigure.web.ServletRateLimitRequest;
import io.ratelimit.core.Decision;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The whole in-process decision: {@link RateLimiter#evaluate} with network (IP) identity,
 * 200 templates with a policy row each (see {@link Limiters}) and the default local bucket
 * store. Requests cycle through a pool of {@value Limiters#CLIENTS}, request {@code i}
 * from client {@code 198.18.x.y} number {@code i} on route {@code i mod 200}, so every
 * route is used and every request has a warm bucket of its own.
 * <ul>
 * <li>{@code evaluate}: endpoints resolved by a map from method and path to template,
 * which isolates the core pipeline (identity, policy, bucket key, bucket, decision) from
 * the web framework.</li>
 * <li>{@code evaluateOneClient}: one client sending one request again and again, as the
 * load test's single address does: its endpoint, bucket key and bucket are always at hand.
 * Its policy (1,000,000 requests per second, bursts of 1,000 seconds) admits every request
 * however fast the benchmark runs.</li>
 * <li>{@code evaluateWithMvcEndpoints}: endpoints resolved by {@link MvcEndpointResolver}
 * through the Spring MVC context of {@link MvcApplication}, on
 * {@link MockHttpServletRequest}s: what the filter asks of the limiter. The 200 paths of
 * the pool come back again and again, so after the fixture's check the resolver answers
 * them from its cache of templates; {@code EndpointNormalizationBenchmark} measures what
 * a path seen for the first time costs.</li>
 * </ul>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar RateLimiterBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
public class RateLimiterBenchmark {

	static final int TEMPLATES = 200;

	private static final int MASK = Limiters.CLIENTS - 1;

	@State(Scope.Thread)
	public static class Core {

		RateLimiter limiter;

		final RateLimitRequest[] requests = new RateLimitRequest[Limiters.CLIENTS];

		int next;

		@Setup
		public void setUp() {
			List<ApiTemplates.Route> routes = ApiTemplates.of(TEMPLATES);
			Map<String, Map<String, EndpointTemplate>> byMethodAndPath = new HashMap<>();
			for (ApiTemplates.Route route : routes) {
				byMethodAndPath.computeIfAbsent(route.method(), (method) -> new HashMap<>())
					.put(route.samplePath(), route.template());
			}
			EndpointResolver endpoints = (request) -> byMethodAndPath.getOrDefault(request.method(), Map.of())
				.getOrDefault(request.path(), EndpointTemplate.UNKNOWN);
			this.limiter = Limiters.limiter(endpoints, routes);
			for (int i = 0; i < this.requests.length; i++) {
				ApiTemplates.Route route = routes.get(i % TEMPLATES);
				this.requests[i] = new SimpleRequest(route.method(), route.samplePath(), Limiters.client(i));
			}
			for (RateLimitRequest request : this.requests) {
				Decision decision = Limiters.warmBucket(this.limiter, request);
				Checks.require(decision.outcome() == Decision.Outcome.ALLOWED && !decision.endpoint().isUnknown(),
						"admitted requests to known routes");
			}
		}

		@TearDown
		public void checkNothingRejected() {
			Checks.require(this.limiter.evaluate(this.requests[0]).outcome() == Decision.Outcome.ALLOWED,
					"the limit never to be reached");
		}

	}

	@State(Scope.Thread)
	public static class OneClient {

		RateLimiter limiter;

		RateLimitRequest request;

		@Setup
		public void setUp() {
			List<ApiTemplates.Route> routes = ApiTemplates.of(TEMPLATES);
			ApiTemplates.Route route = routes.get(0);
			this.limiter = Limiters.limiter((request) -> route.template(), routes, PolicySettings.MAXIMUM_RPS,
					PolicySettings.MAXIMUM_BURST_FACTOR);
			this.request = new SimpleRequest(route.method(), route.samplePath(), Limiters.client(0));
			Checks.require(Limiters.warmBucket(this.limiter, this.request).outcome() == Decision.Outcome.ALLOWED,
					"an admitted request");
		}

		@TearDown
		public void checkNothingRejected() {
			Checks.require(this.limiter.evaluate(this.request).outcome() == Decision.Outcome.ALLOWED,
					"the limit never to be reached");
		}

	}

	@State(Scope.Thread)
	public static class Mvc {

		MvcApplication application;

		RateLimiter limiter;

		final MockHttpServletRequest[] requests = new MockHttpServletRequest[Limiters.CLIENTS];

		int next;

		@Setup
		public void setUp() {
			List<ApiTemplates.Route> routes = ApiTemplates.of(TEMPLATES);
			this.application = MvcApplication.start(routes);
			this.limiter = Limiters.limiter(new MvcEndpointResolver(this.application.context()), routes);
			for (int i = 0; i < this.requests.length; i++) {
				ApiTemplates.Route route = routes.get(i % TEMPLATES);
				MockHttpServletRequest request = new MockHttpServletRequest(route.method(), route.samplePath());
				request.setRemoteAddr(Limiters.client(i));
				this.requests[i] = request;
			}
			for (int i = 0; i < this.requests.length; i++) {
				Decision decision = Limiters.warmBucket(this.limiter, new ServletRateLimitRequest(this.requests[i]));
				Checks.require(decision.outcome() == Decision.Outcome.ALLOWED
						&& decision.endpoint().equals(routes.get(i % TEMPLATES).template()),
						"admitted requests charged to their routes");
			}
		}

		@TearDown
		public void tearDown() {
			Checks.require(this.limiter.evaluate(new ServletRateLimitRequest(this.requests[0]))
				.outcome() == Decision.Outcome.ALLOWED, "the limit never to be reached");
			this.application.close();
		}

	}

	@Benchmark
	public Decision evaluate(Core state) {
		return state.limiter.evaluate(state.requests[state.next++ & MASK]);
	}

	@Benchmark
	public Decision evaluateOneClient(OneClient state) {
		return state.limiter.evaluate(state.request);
	}

	@Benchmark
	public Decision evaluateWithMvcEndpoints(Mvc state) {
		return state.limiter.evaluate(new ServletRateLimitRequest(state.requests[state.next++ & MASK]));
	}

}
