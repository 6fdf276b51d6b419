package io.ratelimit.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.autoconfigure.web.ServletRateLimitRequest;
import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.endpoint.EndpointTemplate;
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

import org.springframework.mock.web.MockHttpServletRequest;

/**
 * Endpoint normalization: {@link MvcEndpointResolver#resolve} asking a real Spring MVC
 * context (see {@link MvcApplication}) which route serves a request, with 10 and 200
 * registered templates ({@link ApiTemplates}).
 * <ul>
 * <li>{@code match}: {@code GET /api/things<last>/12345}, served by the last registered
 * {@code GET /api/things<last>/{id}}. A route with a path variable, so Spring MVC matches
 * the path against every pattern instead of finding it in its map of literal paths; the
 * resolver has cached the template of this path since the fixture's check, so this is the
 * cost of a path clients use again.</li>
 * <li>{@code matchDistinctPaths}: the same route, with {@value #DISTINCT_PATHS} ids taken in
 * turn, more paths than the resolver caches, so nearly every call asks Spring MVC: the cost
 * of a path seen for the first time, and what a client that never repeats an id costs.</li>
 * <li>{@code noMatch}: {@code GET /api/unknown/12345}, which no route serves: every handler
 * mapping is asked, except the annotated one whose patterns cannot match, the
 * static-resource mapping on {@code /**} answers, and the resolver charges
 * {@code UNKNOWN}.</li>
 * <li>{@code noMatchRejecting}: the same request to the resolver that
 * {@code ratelimit.unknown-endpoint=reject} uses, which also asks the static-resource
 * handler whether {@code /api/unknown/12345} is a resource; the answer is remembered, so
 * this is the cost of a random path sent again.</li>
 * <li>{@code noMatchRejectingDistinctPaths}: the same with {@value #DISTINCT_PATHS} unknown
 * paths taken in turn, more than the answers remembered, so every call looks the resource
 * up: the cost of a random path seen for the first time, and what every random path cost
 * in reject mode before the answers were remembered.</li>
 * </ul>
 * The request is one {@link MockHttpServletRequest} per case; the resolver keeps what the
 * lookup stores in request attributes to itself, so every call starts from a clean request.
 * <p>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar EndpointNormalizationBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
@State(Scope.Benchmark)
public class EndpointNormalizationBenchmark {

	static final int DISTINCT_PATHS = 1 << 16;

	@Param({ "10", "200" })
	int templates;

	private MvcApplication application;

	private MvcEndpointResolver resolver;

	private MvcEndpointResolver rejecting;

	private MockHttpServletRequest unknown;

	private RateLimitRequest unknownView;

	private final String[] unknownPaths = new String[DISTINCT_PATHS];

	private RateLimitRequest matching;

	private RateLimitRequest unmatched;

	private MockHttpServletRequest distinct;

	private RateLimitRequest distinctView;

	private final String[] distinctPaths = new String[DISTINCT_PATHS];

	private int next;

	@Setup
	public void setUp() {
		List<ApiTemplates.Route> routes = ApiTemplates.of(this.templates);
		this.application = MvcApplication.start(routes);
		this.resolver = new MvcEndpointResolver(this.application.context());
		ApiTemplates.Route last = routes.stream().filter((route) -> route.kind() == ApiTemplates.Route.Kind.READ)
			.reduce((first, second) -> second)
			.orElseThrow();
		this.matching = new ServletRateLimitRequest(new MockHttpServletRequest("GET", last.samplePath()));
		this.unmatched = new ServletRateLimitRequest(new MockHttpServletRequest("GET", "/api/unknown/" + ApiTemplates.ID));
		Checks.require(this.resolver.resolve(this.matching).equals(last.template()), "match resolves to " + last);
		Checks.require(this.resolver.resolve(this.unmatched).isUnknown(), "noMatch resolves to UNKNOWN");
		for (int i = 0; i < DISTINCT_PATHS; i++) {
			this.distinctPaths[i] = last.pattern().replace("{id}", Integer.toString(1_000_000 + i));
		}
		this.distinct = new MockHttpServletRequest("GET", this.distinctPaths[0]);
		this.distinctView = new ServletRateLimitRequest(this.distinct);
		Checks.require(this.resolver.resolve(this.distinctView).equals(last.template()),
				"matchDistinctPaths resolves to " + last);
		this.rejecting = new MvcEndpointResolver(this.application.context(), true);
		Checks.require(this.rejecting.resolve(this.unmatched).isServedByNothing(),
				"noMatchRejecting resolves to UNKNOWN served by nothing");
		for (int i = 0; i < DISTINCT_PATHS; i++) {
			this.unknownPaths[i] = "/api/unknown/" + (1_000_000 + i);
		}
		this.unknown = new MockHttpServletRequest("GET", this.unknownPaths[0]);
		this.unknownView = new ServletRateLimitRequest(this.unknown);
	}

	@TearDown
	public void tearDown() {
		this.application.close();
	}

	@Benchmark
	public EndpointTemplate match() {
		return this.resolver.resolve(this.matching);
	}

	@Benchmark
	public EndpointTemplate matchDistinctPaths() {
		this.distinct.setRequestURI(this.distinctPaths[this.next++ & (DISTINCT_PATHS - 1)]);
		return this.resolver.resolve(this.distinctView);
	}

	@Benchmark
	public EndpointTemplate noMatch() {
		return this.resolver.resolve(this.unmatched);
	}

	@Benchmark
	public EndpointTemplate noMatchRejecting() {
		return this.rejecting.resolve(this.unmatched);
	}

	@Benchmark
	public EndpointTemplate noMatchRejectingDistinctPaths() {
		this.unknown.setRequestURI(this.unknownPaths[this.next++ & (DISTINCT_PATHS - 1)]);
		return this.rejecting.resolve(this.unknownView);
	}

}
