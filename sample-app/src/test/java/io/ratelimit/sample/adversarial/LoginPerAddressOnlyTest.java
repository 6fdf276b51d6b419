package io.ratelimit.sample.adversarial;

import java.net.http.HttpResponse;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
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
 * A1 (a): the targeted attack against the sample with login protection switched off
 * ({@code ratelimit.login.endpoints} empty), so that a login passes on its client
 * address's bucket alone. Same schedule, policy and trusted proxy as
 * {@link TrustedProxyAttacksTest}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32", "ratelimit.login.endpoints=" })
@Import(FakeClockBuckets.class)
@DirtiesContext
class LoginPerAddressOnlyTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private FakeClock clock;

	@Test
	void loginWhenManyAddressesGuessOneAccountThenPerAddressBucketsDoNotCapTheGuesses() {
		AttackClient http = new AttackClient(this.port);
		HttpResponse<String> probe = http.login("someone-else", "x", "192.0.2.1");
		assertThat(probe.headers().firstValue("RateLimit-Policy")).hasValue("\"POST /api/login\";q=1;w=13");

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(
				(username, password, from) -> http.login(username, password, from).statusCode() != 429, this.clock);

		Figures.record("A1 per-address only (HTTP, sample policy 0.083333 rps, capacity 1)", "%s", result.describe());
		long bound = TargetedLoginAttack.accountBound(0.083333, 1);
		// Each address has a budget of its own: the guesses on one account grow with the botnet.
		assertThat(result.attackerAdmitted()).isGreaterThan((int) (10 * bound));
		// The victim's own address stays within its budget, so the victim is never locked out.
		assertThat(result.victimAdmitted()).isEqualTo(result.victimAttempts());
	}

}
