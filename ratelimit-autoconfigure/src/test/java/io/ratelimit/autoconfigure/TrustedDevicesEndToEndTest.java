package io.ratelimit.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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
 * Trusted devices and refunds over HTTP: a successful login (200) is refunded to the
 * account and earns a device cookie; a later login of that account with the cookie has a
 * bucket of its own, so an attack on the account from elsewhere does not lock its owner
 * out. The login policy holds 10 attempts per bucket, refilled one every 10 seconds.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.login.endpoints=POST /api/login=username", "ratelimit.burst-factor=100",
				"ratelimit.login.device.secret=a-device-token-secret-for-tests" })
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class TrustedDevicesEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	/** The one password the test shop's login accepts. */
	private static final String PASSWORD = "open-sesame";

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
		synchronized (TrustedDevicesEndToEndTest.class) {
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

	private HttpResponse<String> login(String from, String username, String password, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/api/login"))
			.POST(HttpRequest.BodyPublishers
				.ofString("{\"username\":\"" + username + "\",\"password\":\"" + password + "\"}"))
			.header("Content-Type", "application/json")
			.header("X-Forwarded-For", from);
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		try {
			return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static String deviceCookie(HttpResponse<String> response) {
		String setCookie = response.headers().firstValue("Set-Cookie").orElseThrow();
		return setCookie.substring(0, setCookie.indexOf(';'));
	}

	/** Guesses an account's password from many addresses; returns the guesses admitted. */
	private int attack(String username, int guesses) {
		int admitted = 0;
		for (int i = 0; i < guesses; i++) {
			int status = login(newAddress(), username, "guess-" + i).statusCode();
			assertThat(status).isIn(401, 429);
			admitted += (status == 401) ? 1 : 0;
		}
		return admitted;
	}

	@Test
	void loginWhenSuccessfulThenDeviceCookieIssuedWithSafeAttributes() {
		HttpResponse<String> response = login(newAddress(), "carol", PASSWORD);

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().allValues("Set-Cookie")).singleElement()
			.asString()
			.matches("__Host-ratelimit_device=[A-Za-z0-9_-]{64}; Path=/; Max-Age=2592000; Expires=.*; Secure; HttpOnly; "
					+ "SameSite=Strict");
		// A failed login earns nothing.
		assertThat(login(newAddress(), "carol", "wrong").headers().allValues("Set-Cookie")).isEmpty();
	}

	@Test
	void loginWhenAccountUnderAttackThenTheOwnersTrustedDeviceStillGetsThrough() {
		String home = newAddress();
		String cookie = deviceCookie(login(home, "alice", PASSWORD));

		assertThat(attack("alice", 25)).isEqualTo(10);

		assertThat(login(home, "alice", PASSWORD, "Cookie", cookie).statusCode()).isEqualTo(200);
		assertThat(login(newAddress(), "alice", PASSWORD).statusCode()).isEqualTo(429);
		// The device's own bucket is not the attacker's to spend: 20 more guesses change nothing.
		assertThat(attack("alice", 20)).isZero();
		assertThat(login(home, "alice", PASSWORD, "Cookie", cookie).statusCode()).isEqualTo(200);
	}

	@Test
	void loginWhenTokenTamperedForeignOrOversizedThenChargedToTheAccountAsWithout(CapturedOutput output) {
		String home = newAddress();
		String cookie = deviceCookie(login(home, "dave", PASSWORD));
		String token = cookie.substring(cookie.indexOf('=') + 1);
		String foreign = deviceCookie(login(newAddress(), "erin", PASSWORD));
		attack("dave", 10);

		List<String> tokens = new ArrayList<>();
		tokens.add("__Host-ratelimit_device=" + token.substring(0, 20) + ((token.charAt(20) == 'A') ? 'B' : 'A')
				+ token.substring(21));
		tokens.add(foreign);
		tokens.add("__Host-ratelimit_device=" + token.repeat(100));
		tokens.add("__Host-ratelimit_device=" + token + "; __Host-ratelimit_device=" + token);
		for (String presented : tokens) {
			HttpResponse<String> response = login(home, "dave", PASSWORD, "Cookie", presented);
			assertThat(response.statusCode()).as(presented.substring(0, 30)).isEqualTo(429);
			assertThat(response.body()).doesNotContain("dave").doesNotContain(token);
		}
		assertThat(output.getAll()).doesNotContain(token).doesNotContain("\"dave\"");
	}

	@Test
	void loginWhenSiblingSubdomainPlantsAnUnprefixedCookieThenTheDeviceStillCounts() {
		String home = newAddress();
		String cookie = deviceCookie(login(home, "heidi", PASSWORD));
		attack("heidi", 10);

		// A sibling subdomain can set 'ratelimit_device' for the parent domain, never a __Host- cookie.
		assertThat(login(home, "heidi", PASSWORD, "Cookie", "ratelimit_device=planted; " + cookie).statusCode())
			.isEqualTo(200);
	}

	@Test
	void loginWhenTokenSentInTheHeaderThenSameDevice() {
		String home = newAddress();
		String cookie = deviceCookie(login(home, "frank", PASSWORD));
		attack("frank", 10);

		assertThat(login(home, "frank", PASSWORD, "RateLimit-Device",
				cookie.substring(cookie.indexOf('=') + 1))
			.statusCode()).isEqualTo(200);
	}

	@Test
	void loginWhenSuccessfulThenRefundedSoTheOwnerNeverSpendsTheGuessingBudget() {
		// Fifteen successful logins from fifteen addresses: without the refund the
		// account's ten tokens would be gone after ten.
		for (int i = 0; i < 15; i++) {
			assertThat(login(newAddress(), "grace", PASSWORD).statusCode()).isEqualTo(200);
		}

		assertThat(attack("grace", 15)).isEqualTo(10);
	}

}
