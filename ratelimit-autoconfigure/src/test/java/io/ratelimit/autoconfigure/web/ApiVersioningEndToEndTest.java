package io.ratelimit.autoconfigure.web;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.differential.PathVersionedController;
import io.ratelimit.autoconfigure.differential.RequestLedger;
import io.ratelimit.autoconfigure.differential.RequestLedger.Serving;
import io.ratelimit.autoconfigure.differential.VersionedController;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RawHttp;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Framework 7 API versioning, with the version in a header, a query parameter or a
 * path segment: whichever version of a path comes first, every later request is charged to
 * the handler of its own version, and two versions of one path served by different
 * handlers have templates of their own.
 */
class ApiVersioningEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	abstract static class Versioned {

		@LocalServerPort
		private int port;

		@Autowired
		private RequestLedger ledger;

		@Autowired
		private MvcEndpointTemplates templates;

		/** The request target of {@code /api} + {@code rest} in the given version. */
		abstract String target(String rest, String version);

		/** The header lines that carry the version, if the version travels in a header. */
		List<String> versionHeaders(String version) {
			return List.of();
		}

		/** The template of a route {@code /api} + {@code rest}, e.g. {@code GET /api/versioned/reports}. */
		abstract String template(String rest);

		@Test
		void getWhenVersionOneFirstThenVersionTwoStillChargedToItsOwnHandler() {
			String export = "/versioned/orders/export;first=1";
			assertChargedAsServed(export, "1", template("/versioned/orders/*"));
			assertChargedAsServed(export, "2", template("/versioned/orders/export") + ";version=2");
			assertChargedAsServed(export, "1", template("/versioned/orders/*"));
		}

		@Test
		void getWhenVersionTwoFirstThenVersionOneStillChargedToItsOwnHandler() {
			String export = "/versioned/orders/export;first=2";
			assertChargedAsServed(export, "2", template("/versioned/orders/export") + ";version=2");
			assertChargedAsServed(export, "1", template("/versioned/orders/*"));
			assertChargedAsServed(export, "2", template("/versioned/orders/export") + ";version=2");
		}

		@Test
		void getWhenVersionsOfOnePathAreDifferentHandlersThenEachHasItsOwnTemplate() {
			assertChargedAsServed("/versioned/reports", "1", template("/versioned/reports") + ";version=1");
			assertChargedAsServed("/versioned/reports", "2", template("/versioned/reports") + ";version=2");
			assertChargedAsServed("/versioned/reports", "1", template("/versioned/reports") + ";version=1");
		}

		@Test
		void getWhenHandlerInheritedUnderTwoVersionsThenEachVersionHasItsOwnTemplate() {
			String export = "/inherited/orders/export";
			assertChargedAsServed(export, "1", template(export) + ";version=1");
			assertChargedAsServed(export, "2", template(export) + ";version=2");
			assertChargedAsServed(export, "1", template(export) + ";version=1");
		}

		@Test
		void getWhenCatchAllRouteIsVersionedThenChargedToItsVersionedTemplate() {
			assertChargedAsServed("/versioned/files/a/b.txt", "2", template("/versioned/files/**") + ";version=2");
		}

		private void assertChargedAsServed(String rest, String version, String template) {
			String id = "versioned-" + UUID.randomUUID();
			List<String> headers = new ArrayList<>(List.of(RequestLedger.REQUEST_ID, id));
			headers.addAll(versionHeaders(version));

			int status = new RawHttp(this.port).send("GET", target(rest, version), headers.toArray(String[]::new));

			List<Serving> servings = this.ledger.servings(id);
			assertThat(status).isEqualTo(200);
			assertThat(servings).hasSize(1);
			assertThat(this.ledger.charges(id)).as("version %s of %s, served by %s", version, rest, servings)
				.containsExactly(EndpointTemplate.parse(template))
				.containsExactly(DifferentialOracle.expectedCharge(servings.get(0)));
			assertThat(this.templates.contains(EndpointTemplate.parse(template)))
				.as("%s among the application's templates, so a policy row can name it", template)
				.isTrue();
		}

	}

	/**
	 * The differential application with versions 1 and 2 of its versioned routes, version
	 * 1 by default; each style adds where the version is read from. A context of its own
	 * per style.
	 */
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.TYPE)
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.flyway.enabled=false", "spring.jpa.open-in-view=false",
					"spring.mvc.apiversion.supported=1,2", "spring.mvc.apiversion.default=1" })
	@DirtiesContext
	@interface VersionedApplication {

	}

	@Nested
	@VersionedApplication
	@TestPropertySource(properties = "spring.mvc.apiversion.use.header=API-Version")
	@ActiveProfiles(VersionedController.HEADER)
	class InHeader extends Versioned {

		@Override
		String target(String rest, String version) {
			return "/api" + rest;
		}

		@Override
		List<String> versionHeaders(String version) {
			return List.of("API-Version", version);
		}

		@Override
		String template(String rest) {
			return "GET /api" + rest;
		}

	}

	@Nested
	@VersionedApplication
	@TestPropertySource(properties = "spring.mvc.apiversion.use.query-parameter=version")
	@ActiveProfiles(VersionedController.QUERY)
	class InQueryParameter extends Versioned {

		@Override
		String target(String rest, String version) {
			return "/api" + rest + "?version=" + version;
		}

		@Override
		String template(String rest) {
			return "GET /api" + rest;
		}

	}

	@Nested
	@VersionedApplication
	@TestPropertySource(properties = "spring.mvc.apiversion.use.path-segment=1")
	@ActiveProfiles(PathVersionedController.PATH)
	class InPathSegment extends Versioned {

		@Override
		String target(String rest, String version) {
			return "/api/" + version + rest;
		}

		@Override
		String template(String rest) {
			return "GET /api/*" + rest;
		}

	}

}
