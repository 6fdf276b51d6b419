package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.differential.RequestLedger;
import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.autoconfigure.security.FirewalledEndpointResolver;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RawHttp;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.web.EndpointVariants.Variant;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EndpointDifferentialTest} with Spring Security's filter chain between the limiter
 * and the handlers, the limiter running before it (the default). The chain permits every
 * request, so the only thing it decides is its {@code HttpFirewall} (the default
 * {@code StrictHttpFirewall}): SPEC-HTTP section 4 has the limiter apply that firewall
 * first and charge what it rejects to {@code UNKNOWN}.
 * <p>
 * Spring Security reports each rejection to a {@link RequestRejectedHandler}, which this
 * application records before answering 400 as the default handler does, so the test knows
 * from Spring Security itself, not from the limiter, which variants the firewall rejected.
 * For every variant of {@link EndpointVariants}:
 * <ul>
 * <li>rejected by the firewall: answered 400, served by no handler, charged
 * {@code UNKNOWN};</li>
 * <li>otherwise: the same oracle as without Spring Security, and served by the same route
 * as without it, since a chain that permits everything must not change the route.</li>
 * </ul>
 * The rejected variants are listed on standard output, as the difference from the run
 * without Spring Security.
 */
@SpringBootTest(classes = { DifferentialApplication.class, EndpointDifferentialWithSecurityTest.PermitAll.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.policy.default-rps=100000", "ratelimit.policy.unknown-rps=100000",
				"spring.flyway.enabled=false", "spring.jpa.open-in-view=false",
				"spring.web.resources.static-locations=classpath:/differential-static/" })
@DirtiesContext
class EndpointDifferentialWithSecurityTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final AtomicInteger requests = new AtomicInteger();

	/** The variants the firewall rejected, with its reason, in the order they were sent. */
	private static final Queue<String> rejected = new ConcurrentLinkedQueue<>();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private RequestLedger ledger;

	@Autowired
	private FirewallRejections rejections;

	@Autowired
	private ApplicationContext context;

	/**
	 * Guards the set-up the differential test relies on: without the chain bean the limiter
	 * would not apply the firewall and the test would compare the wrong thing.
	 */
	@Test
	void contextWhenSpringSecurityChainRunsThenLimiterAppliesTheFirewall() {
		assertThat(this.context.containsBean("springSecurityFilterChain")).isTrue();
		assertThat(this.context.getBean(EndpointResolver.class)).isInstanceOf(FirewalledEndpointResolver.class);
	}

	@TestFactory
	Stream<DynamicTest> requestWhenVariantSentThroughSpringSecurityThenChargedTemplateIsTheServingHandler() {
		List<Variant> variants = EndpointVariants.all();
		assertThat(variants).extracting(Variant::name).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(60);
		rejected.clear();
		// The second pass meets the templates the resolver cached in the first.
		Stream<DynamicTest> checks = Stream.of("", " (again)")
			.flatMap((pass) -> variants.stream()
				.map((variant) -> DynamicTest.dynamicTest(variant.name() + pass, () -> check(variant))));
		return Stream.concat(checks,
				Stream.of(DynamicTest.dynamicTest("firewall-rejected variants", () -> report(variants.size()))));
	}

	private void check(Variant variant) {
		String target = variant.target().replace(EndpointVariants.AUTHORITY, "127.0.0.1:" + this.port);
		Observation observation = send(variant.method(), target, variant.headers());
		List<EndpointTemplate> charges = observation.charges();
		List<Serving> servings = observation.servings();
		DifferentialOracle.assertRecordedOnce(variant, observation, observation.status(), observation.failures(),
				observation.anonymous(), charges, servings);
		if (!observation.rejections().isEmpty()) {
			rejected.add(variant.name() + "  [" + observation.rejections().get(0) + "]");
			assertThat(observation.status()).as("%s: status of a firewall rejection (%s)", variant, observation)
				.isEqualTo(400);
			assertThat(servings).as("%s: served although the firewall rejected it (%s)", variant, observation)
				.isEmpty();
			assertThat(charges).as("%s: charges of a firewall rejection (%s)", variant, observation)
				.containsExactly(EndpointTemplate.UNKNOWN);
			return;
		}
		DifferentialOracle.assertChargedAsServed(variant, observation, charges, servings,
				"which Spring Security changed without rejecting it");
	}

	private static void report(int variants) {
		List<String> distinct = rejected.stream().distinct().toList();
		System.out.println(distinct.stream()
			.collect(Collectors.joining(System.lineSeparator() + "  ",
					"Spring Security's firewall rejected " + distinct.size() + " of " + variants
							+ " variants (400, charged UNKNOWN; served or 404 without Spring Security):"
							+ System.lineSeparator() + "  ",
					"")));
		assertThat(rejected).as("variants rejected by the firewall; none means it is not in the way").isNotEmpty();
	}

	private Observation send(String method, String target, List<String> headers) {
		String id = "differential-security-" + RUN + "-" + requests.incrementAndGet();
		int anonymousBefore = this.ledger.anonymous();
		List<String> lines = new ArrayList<>(List.of(RequestLedger.REQUEST_ID, id));
		lines.addAll(headers);
		int status = new RawHttp(this.port).send(method, target, lines.toArray(String[]::new));
		return new Observation(status, this.ledger.charges(id), this.ledger.failures(id), this.ledger.servings(id),
				this.rejections.of(id), this.ledger.anonymous() - anonymousBefore);
	}

	/**
	 * What one request did: its status, what the ledger recorded for it and why the
	 * firewall rejected it, if it did.
	 */
	private record Observation(int status, List<EndpointTemplate> charges, List<String> failures,
			List<Serving> servings, List<String> rejections, int anonymous) {

		@Override
		public String toString() {
			return "status " + this.status + ", charged " + this.charges + ", served " + this.servings
					+ ", rejected by the firewall " + this.rejections;
		}

	}

	/**
	 * The firewall's rejections of {@code REQUEST} dispatches, keyed by request id.
	 */
	static final class FirewallRejections {

		private final Map<String, List<String>> rejections = new ConcurrentHashMap<>();

		void add(String requestId, String reason) {
			this.rejections.computeIfAbsent(requestId, (id) -> new CopyOnWriteArrayList<>()).add(reason);
		}

		List<String> of(String requestId) {
			return List.copyOf(this.rejections.getOrDefault(requestId, List.of()));
		}

	}

	/**
	 * A security chain that permits everything and disables CSRF, so that Spring Security
	 * decides nothing but what its firewall rejects.
	 */
	@Configuration(proxyBeanMethods = false)
	static class PermitAll {

		@Bean
		SecurityFilterChain permitAllSecurityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
				.csrf(AbstractHttpConfigurer::disable)
				.build();
		}

		@Bean
		FirewallRejections firewallRejections() {
			return new FirewallRejections();
		}

		/**
		 * Spring Security's chain uses this bean for the firewall's rejections. Only the
		 * {@code REQUEST} dispatch counts; the {@code ERROR} dispatch that follows a 400 or
		 * 404 is not the request the limiter charged.
		 */
		@Bean
		RequestRejectedHandler recordingRequestRejectedHandler(FirewallRejections rejections) {
			RequestRejectedHandler answer = new HttpStatusRequestRejectedHandler();
			return (request, response, ex) -> {
				String id = request.getHeader(RequestLedger.REQUEST_ID);
				if (request.getDispatcherType() == DispatcherType.REQUEST && id != null) {
					rejections.add(id, ex.getMessage());
				}
				answer.handle(request, response, ex);
			};
		}

	}

}
