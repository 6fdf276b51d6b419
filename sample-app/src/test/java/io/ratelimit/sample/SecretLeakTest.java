package io.ratelimit.sample;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run of the sample, as shipped, on PostgreSQL, that uses every secret it has: the demo
 * API keys, alice's login password and bearer tokens, the admin password. None of them,
 * nor the configured API-key hash secret and JWT secret, may show up in the log (the
 * limiter's at DEBUG, from startup on), in a meter name or tag, or in any response: 200s,
 * 401s, 429s, and the admin endpoint's read, explain, reload and Prometheus answers.
 * <p>
 * The one response allowed to carry a secret is the login answer that issues the token;
 * it is still checked for every other secret.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "logging.level.io.ratelimit=DEBUG")
@ActiveProfiles("postgres")
@AutoConfigureMetrics
@ExtendWith(OutputCaptureExtension.class)
class SecretLeakTest {

	private static final List<String> API_KEYS = List.of("demo-acme-key-0001", "demo-globex-key-0001",
			"demo-revoked-key-0001");

	private static final String LOGIN_PASSWORD = "wonderland";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private MeterRegistry meters;

	@Value("${sample.admin.password}")
	private String adminPassword;

	@Value("${sample.jwt.secret}")
	private String jwtSecret;

	@Value("${ratelimit.api-key.hash-secret}")
	private String apiKeyHashSecret;

	private final Map<String, Integer> statuses = new TreeMap<>();

	private final List<String> leaks = new ArrayList<>();

	@Test
	void runWhenSecretsAreUsedThenNoneAppearsInLogsMetersOrResponses(CapturedOutput output) {
		RawExchange http = new RawExchange(this.port);
		Map<String, String> secrets = new LinkedHashMap<>();
		API_KEYS.forEach((key) -> secrets.put("API key " + key.substring(0, 9) + "...", key));
		secrets.put("login password", LOGIN_PASSWORD);
		secrets.put("admin password", this.adminPassword);
		secrets.put("admin Basic credentials", base64("admin:" + this.adminPassword));
		secrets.put("JWT secret", this.jwtSecret);
		secrets.put("API-key hash secret", this.apiKeyHashSecret);

		// A failed login for another account (401), then alice's login under the acme key's
		// own budget (200), then another attempt from the address, over the login policy's
		// budget and alice's (429). Login protection charges each account too, so the failed
		// attempt must not name alice, or her own login would find her account's bucket spent.
		check(secrets, "failed login", login(http, "mallory", "not-" + LOGIN_PASSWORD, null));
		RawExchange.Response login = login(http, "alice", LOGIN_PASSWORD, "demo-acme-key-0001");
		assertThat(login.status()).isEqualTo(200);
		String token = login.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");
		// Checked before the token joins the secrets: this answer is where it is issued.
		check(secrets, "login", login);
		secrets.put("alice's token", token);
		secrets.put("alice's token signature", token.substring(token.lastIndexOf('.') + 1));
		check(secrets, "refused login", login(http, "alice", LOGIN_PASSWORD, null));

		for (int i = 0; i < 2; i++) {
			check(secrets, "bearer products", http.send("GET", "/api/products/1", List.<String[]>of(bearer(token)), null));
			check(secrets, "bearer report", http.send("GET", "/api/reports/" + i, List.<String[]>of(bearer(token)), null));
			for (String key : API_KEYS) {
				check(secrets, "key report", http.send("GET", "/api/reports/" + i, List.<String[]>of(apiKey(key)), null));
			}
		}
		for (int i = 0; i < 5; i++) {
			check(secrets, "key order", http.send("POST", "/api/orders", List.<String[]>of(apiKey("demo-globex-key-0001")), null));
		}
		check(secrets, "bearer on admin endpoint", http.send("GET", "/actuator/ratelimit", List.<String[]>of(bearer(token)), null));
		check(secrets, "key on admin endpoint",
				http.send("GET", "/actuator/ratelimit", List.<String[]>of(apiKey("demo-acme-key-0001")), null));
		check(secrets, "wrong admin password", http.send("GET", "/actuator/ratelimit",
				List.<String[]>of(header("Authorization", "Basic " + base64("admin:" + LOGIN_PASSWORD))), null));

		String[] admin = header("Authorization", "Basic " + base64("admin:" + this.adminPassword));
		for (String target : List.of("/actuator/ratelimit",
				"/actuator/ratelimit/explain?method=GET&path=/api/products&tenant=acme",
				"/actuator/ratelimit/explain?endpoint=POST%20/api/orders", "/actuator/prometheus")) {
			RawExchange.Response response = http.send("GET", target, List.<String[]>of(admin), null);
			assertThat(response.status()).as(target).isEqualTo(200);
			check(secrets, target, response);
		}
		RawExchange.Response reload = http.send("POST", "/actuator/ratelimit/reload", List.<String[]>of(admin), null);
		assertThat(reload.status()).isEqualTo(200);
		check(secrets, "reload", reload);
		RawExchange.Response prometheus = http.send("GET", "/actuator/prometheus", List.<String[]>of(admin), null);
		check(secrets, "prometheus after the run", prometheus);

		for (Meter meter : this.meters.getMeters()) {
			StringBuilder id = new StringBuilder(meter.getId().getName());
			for (Tag tag : meter.getId().getTags()) {
				id.append(' ').append(tag.getKey()).append('=').append(tag.getValue());
			}
			find(secrets, "meter " + meter.getId().getName(), id.toString());
		}
		find(secrets, "log output", output.getAll());

		System.out.printf("secret leaks: %d secrets, %d meters, %d chars of log, responses by status %s%n",
				secrets.size(), this.meters.getMeters().size(), output.getAll().length(), this.statuses);
		// The run did exercise what it claims to: tokens, keys and refusals of each kind.
		assertThat(this.statuses).containsKeys("200", "201", "401", "429");
		assertThat(prometheus.body()).contains("ratelimit_decisions_total");
		assertThat(output.getAll()).contains("Loaded rate limit policies version");
		assertThat(this.leaks).isEmpty();
	}

	private RawExchange.Response login(RawExchange http, String username, String password, String key) {
		List<String[]> headers = new ArrayList<>();
		headers.add(header("Content-Type", "application/json"));
		if (key != null) {
			headers.add(apiKey(key));
		}
		return http.send("POST", "/api/login", headers,
				("{\"username\":\"" + username + "\",\"password\":\"" + password + "\"}").getBytes(StandardCharsets.UTF_8));
	}

	private void check(Map<String, String> secrets, String what, RawExchange.Response response) {
		this.statuses.merge(String.valueOf(response.status()), 1, Integer::sum);
		find(secrets, what + " (" + response.status() + ")", response.text());
	}

	private void find(Map<String, String> secrets, String where, String text) {
		secrets.forEach((name, secret) -> {
			if (text.contains(secret)) {
				int at = text.indexOf(secret);
				this.leaks.add(name + " in " + where + ": ..."
						+ RawExchange.escape(text.substring(Math.max(0, at - 80), Math.min(text.length(), at + 80)))
						+ "...");
			}
		});
	}

	private static String[] bearer(String token) {
		return header("Authorization", "Bearer " + token);
	}

	private static String[] apiKey(String key) {
		return header("X-API-Key", key);
	}

	private static String[] header(String name, String value) {
		return new String[] { name, value };
	}

	private static String base64(String text) {
		return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

}
