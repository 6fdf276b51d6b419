package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.differential.RequestLedger;
import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RawHttp;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.web.EndpointVariants.Variant;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The central invariant of DESIGN 3.1, tested from outside: the template the limiter
 * charges a request to equals the handler that serves it. Each variant of
 * {@link EndpointVariants} goes over a raw socket through a real application, which
 * records both what the limiter charged and what Spring MVC served, and the two are
 * compared:
 * <ul>
 * <li>served by a controller route: charged the template of that route's pattern, with
 * HEAD as GET;</li>
 * <li>reached the application but no route served it (404, 405, a handler without a
 * pattern): charged {@code UNKNOWN};</li>
 * <li>answered by the container before any filter (400 for {@code %2F} and the like):
 * neither charged nor served.</li>
 * </ul>
 * Two documented exceptions, both from SPEC-HTTP section 4, make a served request
 * {@code UNKNOWN}: a non-standard method (an invented method must not mint a template, even
 * when a method-less mapping serves it) and the static-resource handler (its {@code /**}
 * is not a template). No request may ever be served without having been charged.
 * <p>
 * The application's static resources, a welcome page among them, come from
 * {@code differential-static}, so that the root handler and real resources are exercised
 * too. Limits are too high for anything to be rejected. The corpus is sent twice: the
 * second time, each variant meets whatever the resolver remembered of the first.
 * <p>
 * This module has no Spring Security filter chain; {@code ratelimit-security-tests} runs the
 * same corpus with one, through this module's test jar.
 */
@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policy.default-rps=100000", "ratelimit.policy.unknown-rps=100000",
				"spring.flyway.enabled=false", "spring.jpa.open-in-view=false",
				"spring.web.resources.static-locations=classpath:/differential-static/" })
@DirtiesContext
class EndpointDifferentialTest {


	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final AtomicInteger requests = new AtomicInteger();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private RequestLedger ledger;

	@TestFactory
	Stream<DynamicTest> requestWhenVariantSentThenChargedTemplateIsTheServingHandler() {
		List<Variant> variants = EndpointVariants.all();
		assertThat(variants).extracting(Variant::name).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(60);
		// The second pass meets the templates the resolver cached in the first.
		return Stream.of("", " (again)")
			.flatMap((pass) -> variants.stream()
				.map((variant) -> DynamicTest.dynamicTest(variant.name() + pass, () -> check(variant))));
	}

	/**
	 * Spring MVC answers a CORS preflight itself, with a handler for the matched route. This
	 * states the charge directly: the route the preflight was matched to, with OPTIONS (a
	 * handler with a pattern, SPEC-HTTP 4). The application has no CORS configuration:
	 * Spring Framework 6 rejected such a preflight with 403 before any application
	 * interceptor ran, so the differential oracle never saw it; Spring Framework 7 lets the
	 * preflight through (200, granting nothing) and runs the interceptors, so the oracle
	 * sees the preflight handler serve the very route that was charged.
	 */
	@Test
	void preflightWhenRouteMatchesThenChargedToOptionsOfThatRoute() {
		Observation observation = send("OPTIONS", "/api/users/42", preflightFor("PUT"));

		assertThat(observation.status()).isEqualTo(200);
		assertThat(observation.charges()).containsExactly(EndpointTemplate.parse("OPTIONS /api/users/*"));
		assertThat(observation.servings()).extracting(Serving::method, Serving::pattern)
			.containsExactly(tuple("OPTIONS", "/api/users/{id}"));
		assertThat(send("OPTIONS", "/api/ping", preflightFor("GET")).charges())
			.containsExactly(EndpointTemplate.parse("OPTIONS /api/ping"));
	}

	/**
	 * The static-resource mapping answers preflights for every other path with the same
	 * preflight handler, not with the resource handler: only its {@code /**} pattern tells
	 * that it is no route.
	 */
	@Test
	void preflightWhenNoRouteMatchesThenChargedToUnknown() {
		assertThat(send("OPTIONS", "/nowhere", preflightFor("GET")).charges())
			.containsExactly(EndpointTemplate.UNKNOWN);
		assertThat(send("OPTIONS", "/webjars/x.js", preflightFor("GET")).charges())
			.containsExactly(EndpointTemplate.UNKNOWN);
		assertThat(send("OPTIONS", "/api/users/42", preflightFor("POST")).charges())
			.containsExactly(EndpointTemplate.UNKNOWN);
	}

	private static List<String> preflightFor(String method) {
		return List.of("Origin", "https://other.example", "Access-Control-Request-Method", method);
	}

	private void check(Variant variant) {
		String target = variant.target().replace(EndpointVariants.AUTHORITY, "127.0.0.1:" + this.port);
		Observation observation = send(variant.method(), target, variant.headers());
		List<EndpointTemplate> charges = observation.charges();
		List<Serving> servings = observation.servings();
		DifferentialOracle.assertRecordedOnce(variant, observation, observation.status(), observation.failures(),
				observation.anonymous(), charges, servings);
		DifferentialOracle.assertChargedAsServed(variant, observation, charges, servings,
				"which no longer exercises what it was written for");
	}

	private Observation send(String method, String target, List<String> headers) {
		String id = "differential-" + RUN + "-" + requests.incrementAndGet();
		int anonymousBefore = this.ledger.anonymous();
		List<String> lines = new ArrayList<>(List.of(RequestLedger.REQUEST_ID, id));
		lines.addAll(headers);
		int status = new RawHttp(this.port).send(method, target, lines.toArray(String[]::new));
		return new Observation(status, this.ledger.charges(id), this.ledger.failures(id), this.ledger.servings(id),
				this.ledger.anonymous() - anonymousBefore);
	}

	/**
	 * What one request did: its status and what the ledger recorded for it.
	 */
	private record Observation(int status, List<EndpointTemplate> charges, List<String> failures,
			List<Serving> servings, int anonymous) {

		@Override
		public String toString() {
			return "status " + this.status + ", charged " + this.charges + ", served " + this.servings;
		}

	}

}
