package io.ratelimit.autoconfigure.web;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.differential.PathVersionedController;
import io.ratelimit.autoconfigure.differential.RequestLedger;
import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.autoconfigure.differential.TrailingSlashConfiguration;
import io.ratelimit.autoconfigure.differential.VersionedController;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RawHttp;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.web.EndpointVariants.Variant;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The differential test of {@link EndpointDifferentialTest} on further shapes of the
 * application, each a case where the template charged once parted from the handler that
 * served: the whole corpus of {@link EndpointVariants}, plus the variants of the shape,
 * must be charged as served.
 * <p>
 * The resolver also finds out which unknown requests nothing serves (as it does when
 * {@code ratelimit.unknown-endpoint=reject}), but nothing is rejected: every request reaches
 * Spring MVC, so that what the resolver claims nothing serves is compared with what served.
 */
class EndpointShapesDifferentialTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final AtomicInteger requests = new AtomicInteger();

	/** What serves a variant, where the variant is checked by the central invariant alone. */
	static final String UNCHECKED = "(unchecked)";

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	/**
	 * The corpus through one shape of the application.
	 */
	abstract static class Shape {

		@LocalServerPort
		private int port;

		@Autowired
		private RequestLedger ledger;

		/**
		 * The variants only this shape has, with what serves them in it, or
		 * {@link #UNCHECKED} where only the charge is checked against what served.
		 */
		List<Variant> ownVariants() {
			return List.of();
		}

		/** Whether the base corpus is still served by the routes it was written for. */
		boolean servesBaseCorpusAsWritten() {
			return true;
		}

		@TestFactory
		Stream<DynamicTest> requestWhenVariantSentThenChargedTemplateIsTheServingHandler() {
			Stream<DynamicTest> base = EndpointVariants.all()
				.stream()
				.map((variant) -> DynamicTest.dynamicTest(variant.name(),
						() -> check(variant, servesBaseCorpusAsWritten())));
			Stream<DynamicTest> own = ownVariants().stream()
				.map((variant) -> DynamicTest.dynamicTest("shape: " + variant.name(),
						() -> check(variant, !variant.servedBy().equals(UNCHECKED))));
			return Stream.concat(own, base);
		}

		private void check(Variant variant, boolean servedAsWritten) {
			String target = variant.target().replace(EndpointVariants.AUTHORITY, "127.0.0.1:" + this.port);
			String id = "shapes-" + RUN + "-" + requests.incrementAndGet();
			int anonymousBefore = this.ledger.anonymous();
			List<String> lines = new ArrayList<>(List.of(RequestLedger.REQUEST_ID, id));
			lines.addAll(variant.headers());
			int status = new RawHttp(this.port).send(variant.method(), target, lines.toArray(String[]::new));
			List<EndpointTemplate> charges = this.ledger.charges(id);
			List<Serving> servings = this.ledger.servings(id);
			String observation = "status " + status + ", charged " + charges + ", served " + servings;
			DifferentialOracle.assertRecordedOnce(variant, observation, status, this.ledger.failures(id),
					this.ledger.anonymous() - anonymousBefore, charges, servings);
			if (servedAsWritten) {
				DifferentialOracle.assertChargedAsServed(variant, observation, charges, servings,
						"which this shape changed");
			}
			else {
				DifferentialOracle.assertCharged(variant, observation, charges, servings);
			}
			DifferentialOracle.assertRefusableOnlyIfUnserved(variant, observation, status, charges, servings);
		}

	}

	/** The resolver as configured when unknown endpoints are rejected. */
	@TestConfiguration(proxyBeanMethods = false)
	static class FindsServedUnknown {

		@Bean
		EndpointResolver rateLimitEndpointResolver(ApplicationContext context) {
			return new MvcEndpointResolver(context, true);
		}

	}

	/** Static resources, a welcome page, view controllers: which of them exist decides. */
	/**
	 * The differential application of every shape: limits too high to refuse anything, no
	 * migration of its own, the static resources the corpus asks for, and a resolver that
	 * tells served requests without a template from requests nothing serves. A context of
	 * its own per shape.
	 */
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.TYPE)
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.policy.default-rps=100000", "ratelimit.policy.unknown-rps=100000",
					"spring.flyway.enabled=false", "spring.jpa.open-in-view=false",
					"spring.web.resources.static-locations=classpath:/differential-static/" })
	@Import(FindsServedUnknown.class)
	@DirtiesContext
	@interface ShapeApplication {

	}

	@Nested
	@ShapeApplication
	class StaticResources extends Shape {

	}

	/** A single-page application's {@code GET /**} fallback, which serves every path no route takes. */
	@Nested
	@ShapeApplication
	@ActiveProfiles("spa")
	class SpaFallback extends Shape {

		@Override
		boolean servesBaseCorpusAsWritten() {
			return false;
		}

		@Override
		List<Variant> ownVariants() {
			return List.of(new Variant("GET", "/orders/7/edit", "/**", "GET /orders/7/edit (client-side route)"),
					new Variant("GET", "/api/users/42", "/api/users/{id}", "GET /api/users/42 (a route still)"),
					new Variant("DELETE", "/orders/7", EndpointVariants.NO_ROUTE, "DELETE /orders/7 (405)"));
		}

	}


	/**
	 * {@code UrlHandlerFilter} trimming the trailing slash of {@code /api/**} requests
	 * before the handler sees them: the slash variants of the corpus now reach routes.
	 */
	@Nested
	@ShapeApplication
	@ActiveProfiles(TrailingSlashConfiguration.WRAP)
	class TrailingSlashWrapped extends Shape {

		@Override
		boolean servesBaseCorpusAsWritten() {
			return false;
		}

		@Override
		List<Variant> ownVariants() {
			return trailingSlashVariants(true);
		}

	}

	/** {@code UrlHandlerFilter} redirecting {@code /api/**} requests with a trailing slash. */
	@Nested
	@ShapeApplication
	@ActiveProfiles(TrailingSlashConfiguration.REDIRECT)
	class TrailingSlashRedirected extends Shape {

		@Override
		boolean servesBaseCorpusAsWritten() {
			return false;
		}

		@Override
		List<Variant> ownVariants() {
			return trailingSlashVariants(false);
		}

	}

	/**
	 * Trailing slashes under {@code /api/**}: served by the route once trimmed, or
	 * redirected (served by no handler) when the filter redirects.
	 */
	static List<Variant> trailingSlashVariants(boolean wrapped) {
		List<Variant> variants = new ArrayList<>();
		String[][] requests = { { "POST", "/api/login/", "/api/login" }, { "GET", "/api/users/42/", "/api/users/{id}" },
				{ "GET", "/api/products/", "/api/products" }, { "GET", "/api/products/?x=1", "/api/products" },
				{ "GET", "/api/users/42;x=1/", "/api/users/{id}" }, { "GET", "/api/p%69ng/", "/api/ping" },
				{ "GET", "/api/caf%C3%A9/", "/api/caf\u00e9" }, { "HEAD", "/api/users/42/", "/api/users/{id}" },
				{ "GET", "/api/files/a/", "/api/files/{*rest}" }, { "GET", "/api/users/42//", EndpointVariants.NO_ROUTE },
				{ "GET", "/api/nowhere/", EndpointVariants.NO_ROUTE }, { "GET", "/index.html/", EndpointVariants.NO_ROUTE },
				{ "FOO", "/api/any/", "/api/any" } };
		for (String[] request : requests) {
			String servedBy = (wrapped || request[2].equals(EndpointVariants.NO_ROUTE)
					|| !request[1].startsWith("/api/")) ? request[2] : EndpointVariants.NO_ROUTE;
			variants.add(new Variant(request[0], request[1], servedBy, request[0] + " " + request[1]));
		}
		return variants;
	}

	/** API versions in the {@code API-Version} header. */
	@Nested
	@ShapeApplication
	@TestPropertySource(properties = { "spring.mvc.apiversion.use.header=API-Version",
			"spring.mvc.apiversion.supported=1,2", "spring.mvc.apiversion.default=1" })
	@ActiveProfiles(VersionedController.HEADER)
	class VersionInHeader extends Shape {

		@Override
		List<Variant> ownVariants() {
			return versionVariants((target, version) -> new Variant("GET", target, UNCHECKED,
					"GET " + target + " with API-Version " + version, "API-Version", version));
		}

	}

	/** API versions in the {@code version} query parameter. */
	@Nested
	@ShapeApplication
	@TestPropertySource(properties = { "spring.mvc.apiversion.use.query-parameter=version",
			"spring.mvc.apiversion.supported=1,2", "spring.mvc.apiversion.default=1" })
	@ActiveProfiles(VersionedController.QUERY)
	class VersionInQueryParameter extends Shape {

		@Override
		List<Variant> ownVariants() {
			return versionVariants((target, version) -> new Variant("GET", target + "?version=" + version, UNCHECKED,
					"GET " + target + "?version=" + version));
		}

	}

	/**
	 * API versions in the second path segment: the corpus's own paths have none there, so
	 * Spring MVC answers them 400 (served by nothing).
	 */
	@Nested
	@ShapeApplication
	@TestPropertySource(properties = { "spring.mvc.apiversion.use.path-segment=1",
			"spring.mvc.apiversion.supported=1,2", "spring.mvc.apiversion.default=1" })
	@ActiveProfiles(PathVersionedController.PATH)
	class VersionInPathSegment extends Shape {

		@Override
		boolean servesBaseCorpusAsWritten() {
			return false;
		}

		@Override
		List<Variant> ownVariants() {
			return versionVariants((target, version) -> {
				String versioned = target.replaceFirst("^/api/", "/api/" + version + "/");
				return new Variant("GET", versioned, UNCHECKED, "GET " + versioned);
			});
		}

	}

	/**
	 * Versions 1 and 2 of the versioned routes (handlers inherited under both versions, a
	 * versioned catch-all), each path primed by either version first, checked by their
	 * charge against what served them.
	 */
	static List<Variant> versionVariants(BiFunction<String, String, Variant> variant) {
		List<Variant> variants = new ArrayList<>();
		for (String first : List.of("1", "2")) {
			String second = first.equals("1") ? "2" : "1";
			for (String path : List.of("/api/versioned/orders/export;first=" + first,
					"/api/versioned/reports;first=" + first, "/api/inherited/orders/export;first=" + first)) {
				variants.add(variant.apply(path, first));
				variants.add(variant.apply(path, second));
				variants.add(variant.apply(path, first));
			}
		}
		variants.add(variant.apply("/api/versioned/orders/7", "2"));
		variants.add(variant.apply("/api/versioned/reports", "3"));
		variants.add(variant.apply("/api/versioned/files/a/b.txt", "2"));
		variants.add(variant.apply("/api/versioned/files/a/b.txt", "1"));
		return variants;
	}

}
