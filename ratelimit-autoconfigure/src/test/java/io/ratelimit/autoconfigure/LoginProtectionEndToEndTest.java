package io.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dual-bucket login control over HTTP: the client's bucket and the submitted
 * account's bucket must both admit a login, the body is read only within its limits, and
 * the application always receives it whole. Every login here fails (401, a wrong
 * password), so every attempt keeps its charge. The login policy holds 10 attempts per bucket
 * and refills one every 10 seconds, so no refill blurs the counts.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.login.endpoints=POST /api/login=username", "ratelimit.login.max-body-size=1KB",
				"ratelimit.login.max-json-depth=4", "ratelimit.burst-factor=100" })
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class LoginProtectionEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger addresses = new AtomicInteger();

	private static final HttpClient client = HttpClient.newHttpClient();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	private static boolean policyInserted;

	@BeforeEach
	void loginPolicy() throws SQLException {
		synchronized (LoginProtectionEndToEndTest.class) {
			if (!policyInserted) {
				try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
					sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('POST /api/login', 0.1)");
				}
				this.policies.reload();
				policyInserted = true;
			}
		}
	}

	private static String newAddress() {
		return "192.0.2." + addresses.incrementAndGet();
	}

	private HttpResponse<String> login(String from, String contentType, String body) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/api/login"))
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", contentType)
			.header("X-Forwarded-For", from)
			.build();
		try {
			return client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private HttpResponse<String> loginJson(String from, String body) {
		return login(from, "application/json", body);
	}

	private static String credentials(String username) {
		return "{\"username\":\"" + username + "\",\"password\":\"guess\"}";
	}

	@Test
	void loginWhenAdmittedThenApplicationReceivesTheWholeBodyAndBothBucketsAreListed() {
		String body = credentials("reader");

		HttpResponse<String> response = loginJson(newAddress(), body);

		assertThat(response.statusCode()).isEqualTo(401);
		assertThat(response.body()).isEqualTo("received " + body.length());
		assertThat(response.headers().firstValue("RateLimit"))
			.hasValue("\"POST /api/login\";r=9;t=10, \"POST /api/login identifier\";r=9;t=10");
	}

	@Test
	void loginWhenManyAddressesGuessOneAccountThenTheAccountsBucketStopsThem() {
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			admitted += (loginJson(newAddress(), credentials("victim")).statusCode() == 401) ? 1 : 0;
		}

		assertThat(admitted).isEqualTo(10);
		HttpResponse<String> refused = loginJson(newAddress(), credentials("Victim"));
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void loginWhenFieldRepeatedWithAnotherAccountThenChargedAsUnreadableNotToEitherAccount() {
		for (int i = 0; i < 10; i++) {
			loginJson(newAddress(), credentials("target"));
		}

		// Neither the decoy's fresh bucket nor the target's empty one: the shared unreadable one.
		HttpResponse<String> smuggled = loginJson(newAddress(),
				"{\"username\":\"decoy\",\"password\":\"x\",\"username\":\"target\"}");
		HttpResponse<String> unreadable = loginJson(newAddress(), "not json");

		assertThat(smuggled.statusCode()).isEqualTo(401);
		assertThat(remainingOfIdentifier(unreadable)).isEqualTo(remainingOfIdentifier(smuggled) - 1);
	}

	@Test
	void loginWhenFieldRepeatedWithTheSameAccountThenThatAccountIsCharged() {
		HttpResponse<String> twice = loginJson(newAddress(),
				"{\"username\":\"twice\",\"password\":\"x\",\"username\":\" Twice\"}");

		assertThat(twice.headers().firstValue("RateLimit").orElseThrow())
			.endsWith("\"POST /api/login identifier\";r=9;t=10");
	}

	@Test
	void loginWhenBodyOversizedMalformedOrTooDeepThenChargedToOneBucketSharedByAllClients() {
		String oversized = "{\"username\":\"someone\",\"padding\":\"" + "x".repeat(2000) + "\"}";
		HttpResponse<String> large = loginJson(newAddress(), oversized);
		assertThat(large.statusCode()).isEqualTo(401);
		assertThat(large.body()).isEqualTo("received " + oversized.length());
		int before = remainingOfIdentifier(large);

		loginJson(newAddress(), "{\"username\":");
		loginJson(newAddress(), "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1}}}},\"username\":\"someone\"}");
		HttpResponse<String> fourth = loginJson(newAddress(), "not json at all");

		// Four addresses, one bucket of unreadable attempts; each client's own bucket is full.
		assertThat(remainingOfIdentifier(fourth)).isEqualTo(before - 3);
		assertThat(fourth.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"POST /api/login\";r=9;t=10");
	}

	private static int remainingOfIdentifier(HttpResponse<String> response) {
		String fields = response.headers().firstValue("RateLimit").orElseThrow();
		String identifier = fields.substring(fields.indexOf("identifier\";r=") + "identifier\";r=".length());
		return Integer.parseInt(identifier.substring(0, identifier.indexOf(';')));
	}

	@Test
	void loginWhenClientDisconnectsMidBodyThenChargedAsUnreadableAndServerCarriesOn(CapturedOutput output)
			throws IOException {
		String from = newAddress();
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
					+ "X-Forwarded-For: " + from + "\r\nContent-Length: 500\r\n\r\n{\"username\":\"som")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		} // closed with 480 bytes of the body never sent

		// The server served the next request from that client, charged to the unreadable bucket.
		HttpResponse<String> next = loginJson(from, "garbage");
		assertThat(next.statusCode()).isEqualTo(401);
		assertThat(next.headers().firstValue("RateLimit").orElseThrow()).contains("identifier\";r=");
		// Nothing of the limiter's complains about the broken request.
		assertThat(output.getAll().lines().filter((line) -> line.contains("ERROR") || line.contains("Exception")))
			.noneMatch((line) -> line.contains("i.r.") || line.contains("io.ratelimit"));
	}

	@Test
	void loginWhenFormBodyThenParameterIsTheAccount() {
		for (int i = 0; i < 10; i++) {
			login(newAddress(), "application/x-www-form-urlencoded", "username=formvictim&password=guess");
		}

		assertThat(loginJson(newAddress(), credentials("FormVictim")).statusCode()).isEqualTo(429);
	}

}
