package io.ratelimit.autoconfigure.shed;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.shedapp.SheddingApplication;
import io.ratelimit.autoconfigure.shedapp.SheddingController;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Load shedding through HTTP on a real server, with the concurrency limit held at 10 so
 * that SHEDDABLE requests may have 6 in flight, DEFAULT ones 8 and CRITICAL ones 10.
 * Handlers wait at a gate to hold requests in flight.
 */
class LoadSheddingEndToEndTest {

	private static final String FIXED_LIMIT = "ratelimit.shedding.min-limit=10";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	abstract static class Running {

		@LocalServerPort
		int port;

		@Autowired
		SheddingController controller;

		@Autowired
		LoadShedder shedder;

		@BeforeEach
		void closeGate() {
			this.controller.close();
			this.controller.resetMostServing();
		}

		@AfterEach
		void openGate() {
			this.controller.open();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.shedder.inFlight() == 0);
		}

		CompletableFuture<HttpResponse<String>> sendAsync(String method, String path) {
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
				.method(method, HttpRequest.BodyPublishers.noBody())
				.build();
			return CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString());
		}

		List<CompletableFuture<HttpResponse<String>>> hold(String path, int count) {
			int before = this.controller.serving();
			List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				held.add(sendAsync("GET", path));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.serving() == before + count);
			return held;
		}

	}

	@Nested
	@SpringBootTest(classes = SheddingApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.shedding.enabled=true", FIXED_LIMIT, "ratelimit.shedding.initial-limit=10",
					"ratelimit.shedding.max-limit=10", "ratelimit.shedding.priorities.critical=POST /api/payments",
					"ratelimit.shedding.priorities.sheddable=GET /api/reports, GET /api/large",
					"ratelimit.policy.default-rps=100000", "spring.flyway.enabled=false", "ratelimit.policy.unknown-rps=100000",
					"spring.mvc.async.request-timeout=300ms", "spring.jpa.open-in-view=false",
					"management.endpoints.web.exposure.include=ratelimit" })
	@DirtiesContext
	class Enforced extends Running {

		@Autowired
		MeterRegistry meters;

		@Autowired
		HealthIndicator ratelimitSheddingHealthIndicator;

		@Test
		void getWhenSheddableShareFullThen503WithRetryAfterAndCriticalStillPasses() throws Exception {
			List<CompletableFuture<HttpResponse<String>>> held = hold("/api/reports", 6);

			HttpResponse<String> shed = new Http(this.port).get("/api/reports");
			assertThat(shed.statusCode()).isEqualTo(503);
			assertThat(shed.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(shed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(shed.headers().firstValue("RateLimit")).isEmpty();
			assertThat(shed.headers().firstValue("RateLimit-Policy")).isEmpty();
			assertThat(shed.body()).contains("\"status\":503", "\"endpoint\":\"GET /api/reports\"",
					"\"priority\":\"SHEDDABLE\"");
			HttpResponse<String> critical = new Http(this.port).send("POST", "/api/payments");
			assertThat(critical.statusCode()).isEqualTo(200);
			assertThat(critical.body()).isEqualTo("paid");
			assertThat(this.meters.get("ratelimit.shedding.shed").tag("priority", "sheddable").functionCounter().count())
				.isGreaterThanOrEqualTo(1);
			// The critical request's place goes back as its thread leaves the filter, which may
			// be just after its client has the answer.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.meters.get("ratelimit.shedding.in.flight").gauge().value() == 6);
			assertThat(this.meters.get("ratelimit.shedding.limit").gauge().value()).isEqualTo(10);
			Health health = this.ratelimitSheddingHealthIndicator.health();
			assertThat(health.getStatus()).as("shedding is not a fault").isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("shedding", true).containsEntry("limit", 10);

			this.controller.open();
			for (CompletableFuture<HttpResponse<String>> response : held) {
				assertThat(response.get().statusCode()).isEqualTo(200);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> this.shedder.inFlight() == 0);
		}

		@Test
		void getWhenManyRequestsRaceThenExactlyTheSheddableShareIsServedAtOnce() throws Exception {
			List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				responses.add(sendAsync("GET", "/api/reports"));
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> responses.stream().filter(CompletableFuture::isDone).count() == 34);
			assertThat(this.controller.serving()).isEqualTo(6);

			this.controller.open();
			int served = 0;
			int shed = 0;
			for (CompletableFuture<HttpResponse<String>> response : responses) {
				int status = response.get().statusCode();
				served += (status == 200) ? 1 : 0;
				shed += (status == 503) ? 1 : 0;
			}
			assertThat(served).isEqualTo(6);
			assertThat(shed).isEqualTo(34);
			assertThat(this.controller.mostServing()).isEqualTo(6);
		}

		@Test
		void getWhenHandlerThrowsThenPermitIsReleased() {
			Http http = new Http(this.port);
			for (int i = 0; i < 30; i++) {
				HttpResponse<String> failing = http.get("/api/failing");
				assertThat(failing.statusCode()).as("%s %s", failing.headers().map(), failing.body()).isEqualTo(500);
			}
			// Thirty requests through a limit of ten: each place came back. The last may come
			// back just after its client has the answer.
			await().atMost(Duration.ofSeconds(5)).until(() -> this.shedder.inFlight() == 0);
		}

		@Test
		void getWhenAsyncCompletesThenPermitIsReleasedOnlyThen() throws Exception {
			List<CompletableFuture<HttpResponse<String>>> held = hold("/api/async", 2);
			assertThat(this.shedder.inFlight()).isEqualTo(2);

			this.controller.open();
			for (CompletableFuture<HttpResponse<String>> response : held) {
				assertThat(response.get().body()).isEqualTo("async");
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> this.shedder.inFlight() == 0);
		}

		@Test
		void getWhenAsyncTimesOutThenPermitIsReleased() {
			Http http = new Http(this.port);
			for (int i = 0; i < 12; i++) {
				assertThat(http.get("/api/never").statusCode()).isEqualTo(503);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> this.shedder.inFlight() == 0);
			assertThat(this.shedder.shed(Priority.DEFAULT)).isZero();
		}

		@Test
		void getWhenAsyncTaskTimesOutButRunsOnThenItHoldsItsPlaceUntilItReturns() throws Exception {
			List<CompletableFuture<HttpResponse<String>>> held = hold("/api/stubborn", 2);
			for (CompletableFuture<HttpResponse<String>> response : held) {
				assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
			}
			// Answered, but both tasks still run on the server: their places are still taken.
			assertThat(this.controller.serving()).isEqualTo(2);
			assertThat(this.shedder.inFlight()).isEqualTo(2);

			this.controller.open();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.shedder.inFlight() == 0);
		}

		@Test
		void getWhenClientAbortsThenPermitIsReleased() throws Exception {
			try (Socket socket = new Socket("127.0.0.1", this.port)) {
				OutputStream out = socket.getOutputStream();
				out.write("GET /api/large HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
				out.flush();
				await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.serving() == 1);
				socket.setSoLinger(true, 0);
			}
			this.controller.open();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.shedder.inFlight() == 0);
		}

		@Test
		void requestWhenOnlyCriticalMayPassThenNoSpellingOrHeaderMakesOneCritical() throws IOException {
			hold("/api/reports", 6);
			hold("/api/orders/1", 2);
			Http http = new Http(this.port);

			assertThat(http.send("POST", "/api/payments").statusCode()).isEqualTo(200);
			assertThat(http.get("/api/orders/2").statusCode()).isEqualTo(503);
			assertThat(http.get("/api/payments", "X-HTTP-Method-Override", "POST").statusCode()).isEqualTo(503);
			assertThat(http.get("/api/payments?_method=POST").statusCode()).isEqualTo(503);
			assertThat(http.send("POST", "/api/reports", "X-HTTP-Method-Override", "GET").statusCode())
				.isEqualTo(503);
			assertThat(http.send("POST", "/api/payments/").statusCode()).isEqualTo(503);
			assertThat(http.send("POST", "/API/payments").statusCode()).isEqualTo(503);
			assertThat(http.send("POST", "/api/payments.json").statusCode()).isEqualTo(503);
			assertThat(http.send("POST", "/api/nothing/here").statusCode()).isEqualTo(503);
			// The payments handler serves it, so it is a payment: critical by right.
			HttpResponse<String> parameter = http.send("POST", "/api/payments;x=1");
			assertThat(parameter.body()).isEqualTo("paid");
			assertThat(this.controller.mostServing()).isEqualTo(8);
		}

		@Test
		void explainWhenSheddingOnThenShowsClassAndLimit() {
			Http http = new Http(this.port);
			assertThat(http.get("/actuator/ratelimit/explain?method=POST&path=/api/payments").body())
				.contains("\"shedding\":{\"priority\":\"CRITICAL\",\"mode\":\"enforce\",\"limit\":10,\"ceiling\":10,");
			assertThat(http.get("/actuator/ratelimit/explain?method=GET&path=/no/such/thing").body())
				.contains("\"shedding\":{\"priority\":\"SHEDDABLE\",\"mode\":\"enforce\",\"limit\":10,\"ceiling\":6,");
			assertThat(http.get("/actuator/ratelimit/explain?endpoint=GET%20/api/orders/*").body())
				.contains("\"shedding\":{\"priority\":\"DEFAULT\",\"mode\":\"enforce\",\"limit\":10,\"ceiling\":8,");
		}

	}

	@Nested
	@SpringBootTest(classes = SheddingApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "ratelimit.shedding.enabled=true", "ratelimit.shedding.shadow=true", FIXED_LIMIT,
					"ratelimit.shedding.initial-limit=10", "ratelimit.shedding.max-limit=10",
					"ratelimit.shedding.priorities.sheddable=GET /api/reports",
					"ratelimit.policy.default-rps=100000", "spring.flyway.enabled=false", "spring.jpa.open-in-view=false" })
	@DirtiesContext
	class Shadow extends Running {

		@Autowired
		MeterRegistry meters;

		@Test
		void getWhenOverTheShareInShadowModeThenServedAndCounted() throws Exception {
			List<CompletableFuture<HttpResponse<String>>> held = hold("/api/reports", 9);

			assertThat(this.controller.serving()).isEqualTo(9);
			assertThat(this.shedder.shed(Priority.SHEDDABLE)).isEqualTo(3);
			assertThat(this.meters.get("ratelimit.shedding.shed")
				.tag("priority", "sheddable")
				.tag("mode", "shadow")
				.functionCounter()
				.count()).isEqualTo(3);
			this.controller.open();
			for (CompletableFuture<HttpResponse<String>> response : held) {
				assertThat(response.get().statusCode()).isEqualTo(200);
			}
		}

	}

}
