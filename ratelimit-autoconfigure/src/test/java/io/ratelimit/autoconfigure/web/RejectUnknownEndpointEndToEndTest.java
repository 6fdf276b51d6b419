package io.ratelimit.autoconfigure.web;

import java.net.http.HttpResponse;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.unknown-endpoint=reject} answers 404 only to what nothing serves: a static
 * resource that exists and a single-page application's {@code /**} fallback are served, and
 * limited under the {@code UNKNOWN} policy like any request without a template.
 */
class RejectUnknownEndpointEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	private static void assertServedAsUnknown(HttpResponse<String> response, String body) {
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains(body);
		assertThat(response.headers().firstValue("RateLimit")).hasValueSatisfying(
				(field) -> assertThat(field).startsWith("\"UNKNOWN\";"));
	}

	private static void assertRejected(HttpResponse<String> response) {
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.headers().firstValue("RateLimit")).isEmpty();
	}

	@Nested
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.unknown-endpoint=reject", "spring.flyway.enabled=false",
					"spring.jpa.open-in-view=false",
					"spring.web.resources.static-locations=classpath:/differential-static/" })
	@DirtiesContext
	class StaticResources {

		@LocalServerPort
		private int port;

		@Test
		void getWhenStaticResourceExistsThenServedAndLimitedAsUnknown() {
			Http http = new Http(this.port);

			assertServedAsUnknown(http.get("/site.css"), "body");
			assertServedAsUnknown(http.get("/index.html"), "html");
		}

		@Test
		void getWhenNoResourceNorRouteThenRejected() {
			Http http = new Http(this.port);

			assertRejected(http.get("/nowhere.css"));
			assertRejected(http.get("/api/nowhere"));
			assertRejected(http.get("/site.css/x"));
		}

		@Test
		void getWhenRouteThenChargedToItsTemplate() {
			HttpResponse<String> response = new Http(this.port).get("/api/users/42");

			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit")).hasValueSatisfying(
					(field) -> assertThat(field).startsWith("\"default\";"));
		}

	}

	@Nested
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.unknown-endpoint=reject", "spring.flyway.enabled=false",
					"spring.jpa.open-in-view=false" })
	@ActiveProfiles("spa")
	@DirtiesContext
	class SpaFallback {

		@LocalServerPort
		private int port;

		@Test
		void getWhenClientSideRouteThenServedByFallbackAndLimitedAsUnknown() {
			Http http = new Http(this.port);

			assertServedAsUnknown(http.get("/orders/7/edit"), "single-page application");
			assertServedAsUnknown(http.get("/"), "single-page application");
		}

		@Test
		void requestWhenFallbackDoesNotServeMethodThenRejected() {
			assertRejected(new Http(this.port).send("DELETE", "/orders/7"));
		}

	}

}
