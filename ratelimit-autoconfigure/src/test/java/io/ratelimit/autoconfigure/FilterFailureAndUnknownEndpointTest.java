package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;

import io.ratelimit.autoconfigure.failing.FailingEndpointResolverConfiguration;
import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.bucket.BucketStore;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the filter answers when the limiter fails (never a 500) and when unknown endpoints
 * are rejected early.
 */
class FilterFailureAndUnknownEndpointTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@Nested
	@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
	@Import(FailingEndpointResolverConfiguration.class)
	@DirtiesContext
	class FailOpen {

		@LocalServerPort
		private int port;

		@Test
		void getWhenLimiterFailsAndFailureModeOpenThenRequestServed() {
			HttpResponse<String> response = new Http(this.port).get("/api/products", "X-Break-Limiter", "1");

			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("products");
			assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		}

	}

	@Nested
	@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.failure-mode=closed")
	@Import(FailingEndpointResolverConfiguration.class)
	@DirtiesContext
	class FailClosed {

		@LocalServerPort
		private int port;

		@Test
		void getWhenLimiterFailsAndFailureModeClosedThen503ProblemNot500() {
			HttpResponse<String> response = new Http(this.port).get("/api/products", "X-Break-Limiter", "1");

			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.body()).contains("\"status\":503").doesNotContain("limiter broken on purpose");
		}

		@Test
		void getWhenLimiterWorksThenFailureModeChangesNothing() {
			assertThat(new Http(this.port).get("/api/products").statusCode()).isEqualTo(200);
		}

	}

	@Nested
	@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.unknown-endpoint=reject")
	@DirtiesContext
	class RejectUnknownEndpoints {

		@LocalServerPort
		private int port;

		@Autowired
		private BucketStore buckets;

		@Test
		void getWhenNoHandlerThen404ProblemWithoutAnyBucket() {
			Http http = new Http(this.port);
			long before = this.buckets.stats().entries();

			for (int i = 0; i < 50; i++) {
				HttpResponse<String> response = http.get("/no/such/path/" + i);
				assertThat(response.statusCode()).isEqualTo(404);
				assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			}

			assertThat(this.buckets.stats().entries()).isEqualTo(before);
		}

		@Test
		void getWhenHandlerExistsThenServedAsUsual() {
			assertThat(new Http(this.port).get("/api/users/42").body()).isEqualTo("user 42");
		}

	}

}
