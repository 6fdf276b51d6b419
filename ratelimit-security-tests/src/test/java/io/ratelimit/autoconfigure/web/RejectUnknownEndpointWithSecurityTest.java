package io.ratelimit.autoconfigure.web;

import java.net.http.HttpResponse;

import io.ratelimit.autoconfigure.differential.DifferentialApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.unknown-endpoint=reject} with Spring Security's filter chain, where the
 * limiter resolves endpoints behind Spring Security's firewall: a static resource that
 * exists is served and limited as {@code UNKNOWN}, a path nothing serves is answered 404.
 */
@SpringBootTest(classes = { DifferentialApplication.class, EndpointDifferentialWithSecurityTest.PermitAll.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.unknown-endpoint=reject", "spring.flyway.enabled=false",
				"spring.jpa.open-in-view=false",
				"spring.web.resources.static-locations=classpath:/differential-static/" })
@DirtiesContext
class RejectUnknownEndpointWithSecurityTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Test
	void getWhenStaticResourceExistsThenServedAndLimitedAsUnknown() {
		HttpResponse<String> response = new Http(this.port).get("/site.css");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit"))
			.hasValueSatisfying((field) -> assertThat(field).startsWith("\"UNKNOWN\";"));
	}

	@Test
	void getWhenNothingServesThenRejectedWithoutRateLimitFields() {
		HttpResponse<String> response = new Http(this.port).get("/nowhere.css");

		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.headers().firstValue("RateLimit")).isEmpty();
	}

}
