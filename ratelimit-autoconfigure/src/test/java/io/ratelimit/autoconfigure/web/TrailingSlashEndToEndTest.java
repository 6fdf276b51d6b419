package io.ratelimit.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.UUID;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.differential.RequestLedger;
import io.ratelimit.autoconfigure.differential.TrailingSlashConfiguration;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that handles trailing slashes with Spring Framework 7's
 * {@code UrlHandlerFilter}, an ordinary filter bean that runs after the limiter: the
 * limiter must charge the request as the handler will see it.
 */
class TrailingSlashEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	private static String requestId() {
		return "trailing-slash-" + UUID.randomUUID();
	}

	@Nested
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.flyway.enabled=false", "spring.jpa.open-in-view=false" })
	@ActiveProfiles(TrailingSlashConfiguration.WRAP)
	@DirtiesContext
	class WrapRequest {

		@LocalServerPort
		private int port;

		@Autowired
		private RequestLedger ledger;

		@Test
		void postWhenTrailingSlashTrimmedForHandlerThenChargedToHandlersTemplate() {
			String id = requestId();

			HttpResponse<String> response = new Http(this.port).send("POST", "/api/login/", RequestLedger.REQUEST_ID,
					id);

			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("welcome");
			assertThat(this.ledger.servings(id)).extracting(RequestLedger.Serving::pattern).containsExactly("/api/login");
			assertThat(this.ledger.charges(id)).containsExactly(EndpointTemplate.parse("POST /api/login"));
		}

		@Test
		void getWhenTrailingSlashOutsideFilteredPathsThenNotServedAndUnknown() {
			String id = requestId();

			HttpResponse<String> response = new Http(this.port).get("/index.html/", RequestLedger.REQUEST_ID, id);

			assertThat(response.statusCode()).isEqualTo(404);
			assertThat(this.ledger.charges(id)).containsExactly(EndpointTemplate.UNKNOWN);
		}

	}

	@Nested
	@SpringBootTest(classes = DifferentialApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.flyway.enabled=false", "spring.jpa.open-in-view=false",
					"ratelimit.unknown-endpoint=reject" })
	@ActiveProfiles(TrailingSlashConfiguration.REDIRECT)
	@DirtiesContext
	class Redirect {

		@LocalServerPort
		private int port;

		@Autowired
		private RequestLedger ledger;

		@Test
		void postWhenFilterRedirectsThenRedirectedNotRejectedAndChargedAsUnknown() {
			String id = requestId();

			HttpResponse<String> response = new Http(this.port).send("POST", "/api/login/", RequestLedger.REQUEST_ID,
					id);

			assertThat(response.statusCode()).isEqualTo(308);
			assertThat(response.headers().firstValue("Location")).hasValue("/api/login");
			assertThat(this.ledger.servings(id)).isEmpty();
			assertThat(this.ledger.charges(id)).containsExactly(EndpointTemplate.UNKNOWN);
		}

	}

}
