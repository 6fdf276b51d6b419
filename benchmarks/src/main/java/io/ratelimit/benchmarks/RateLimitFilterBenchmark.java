package io.ratelimit.benchmarks;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.RateLimitProperties.FailureMode;
import io.ratelimit.autoconfigure.security.FirewalledEndpointResolver;
import io.ratelimit.autoconfigure.web.MvcEndpointResolver;
import io.ratelimit.autoconfigure.web.RateLimitFilter;
import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.autoconfigure.web.ServletRateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.endpoint.EndpointResolver;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
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
import org.openjdk.jmh.infra.Blackhole;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * The servlet filter: {@link RateLimitFilter#doFilter} with endpoints resolved through
 * Spring MVC ({@link MvcEndpointResolver} over the context of {@link MvcApplication}, 200
 * templates), alone or behind Spring Security's default firewall
 * ({@link FirewalledEndpointResolver}, parameter {@code resolution}), the limiter of
 * {@link Limiters} (network identity, a policy per template, every request admitted), no
 * listener, and a filter chain that does nothing. So this is what the filter adds in front
 * of the application: adapting the request, the decision, and setting the
 * {@code RateLimit-Policy} and {@code RateLimit} response fields.
 * <p>
 * Requests cycle through a pool of {@value Limiters#CLIENTS} {@link MockHttpServletRequest}s
 * and their {@link MockHttpServletResponse}s, request {@code i} from client number
 * {@code i} on route {@code i mod 200}; the filter replaces the fields it set the time
 * before. The paths repeat, so the resolver answers them from its cache of templates.
 * <p>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar RateLimitFilterBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
@State(Scope.Thread)
public class RateLimitFilterBenchmark {

	private static final int MASK = Limiters.CLIENTS - 1;

	private static final FilterChain NOTHING = (request, response) -> {
	};

	/**
	 * {@code mvc}: Spring MVC alone, as in an application without Spring Security;
	 * {@code firewall}: Spring Security's default firewall ahead of it, as the starter
	 * configures the filter in front of Spring Security's chain.
	 */
	@Param({ "mvc", "firewall" })
	public String resolution;

	private MvcApplication application;

	private RateLimitFilter filter;

	private final MockHttpServletRequest[] requests = new MockHttpServletRequest[Limiters.CLIENTS];

	private final MockHttpServletResponse[] responses = new MockHttpServletResponse[Limiters.CLIENTS];

	private int next;

	@Setup
	public void setUp() throws ServletException, IOException {
		List<ApiTemplates.Route> routes = ApiTemplates.of(RateLimiterBenchmark.TEMPLATES);
		this.application = MvcApplication.start(routes);
		RateLimiter limiter = Limiters.limiter(resolver(), routes);
		this.filter = new RateLimitFilter(limiter, FailureMode.OPEN, RateLimitFilterListener.NONE);
		for (int i = 0; i < this.requests.length; i++) {
			ApiTemplates.Route route = routes.get(i % RateLimiterBenchmark.TEMPLATES);
			this.requests[i] = new MockHttpServletRequest(route.method(), route.samplePath());
			this.requests[i].setRemoteAddr(Limiters.client(i));
			this.responses[i] = new MockHttpServletResponse();
			Limiters.warmBucket(limiter, new ServletRateLimitRequest(this.requests[i]));
			this.filter.doFilter(this.requests[i], this.responses[i], NOTHING);
			Checks.require(this.responses[i].getStatus() == 200
					&& ("\"" + route.template() + "\"").equals(policyName(this.responses[i])),
					"admitted requests charged to their routes");
		}
	}

	private EndpointResolver resolver() {
		return switch (this.resolution) {
			case "mvc" -> new MvcEndpointResolver(this.application.context());
			case "firewall" -> FirewalledEndpointResolver.withDefaultFirewall(this.application.context());
			default -> throw new IllegalArgumentException("Unknown resolution " + this.resolution);
		};
	}

	private static String policyName(MockHttpServletResponse response) {
		String policy = response.getHeader("RateLimit-Policy");
		return (policy != null) ? policy.substring(0, policy.indexOf(';')) : null;
	}

	@TearDown
	public void tearDown() throws ServletException, IOException {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(this.requests[0], response, NOTHING);
		Checks.require(response.getStatus() == 200, "the limit never to be reached");
		this.application.close();
	}

	@Benchmark
	public void doFilter(Blackhole blackhole) throws ServletException, IOException {
		int i = this.next++ & MASK;
		this.filter.doFilter(this.requests[i], this.responses[i], NOTHING);
		blackhole.consume(this.responses[i]);
	}

}
