package io.ratelimit.sample.adversarial;

import java.time.Duration;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
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
 * Attacks on the sample behind a trusted proxy (this test's own address, 127.0.0.1), so
 * that {@code X-Forwarded-For} chooses the client: A1 (targeted lockout against the dual
 * bucket login control, as the sample ships it) and A2 (a client that spoofs the left part
 * of the header is charged as the right-most untrusted address). Over real HTTP, on
 * PostgreSQL, with the sample's seeded policies; the buckets run on a {@link FakeClock}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "ratelimit.client-ip.trusted-proxies=127.0.0.1/32")
@Import(FakeClockBuckets.class)
@DirtiesContext
class TrustedProxyAttacksTest {

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

	private AttackClient http;

	@BeforeEach
	void freshBuckets() {
		this.http = new AttackClient(this.port);
		// Every bucket of an earlier test is full again, and forgotten.
		this.clock.advance(java.time.Duration.ofHours(1));
	}

	/**
	 * A1 (c): the dual bucket, the victim without a trusted device (as with trusted devices
	 * off: it never keeps the cookie a login hands out). The account's bucket caps the
	 * attacker's guesses at its capacity plus its refill, whatever the number of addresses;
	 * the price is that the attacker also spends the victim's logins.
	 */
	@Test
	void loginWhenManyAddressesGuessOneAccountThenGuessesCappedByTheAccountsBucket() {
		HttpResponse<String> probe = this.http.login("someone-else", "x", "192.0.2.1");
		assertThat(probe.headers().firstValue("RateLimit-Policy"))
			.hasValue("\"POST /api/login\";q=1;w=13, \"POST /api/login identifier\";q=1;w=13");

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(new Victim(null, false), this.clock);

		Figures.record("A1 dual bucket (HTTP, sample policy 0.083333 rps, capacity 1)", "%s", result.describe());
		long bound = TargetedLoginAttack.accountBound(0.083333, 1);
		assertThat(result.attackerAdmitted()).isLessThanOrEqualTo((int) bound);
		// Whoever spends them, the account's bucket admits no more than its budget.
		assertThat(result.attackerAdmitted() + result.victimAdmitted()).isLessThanOrEqualTo((int) bound + 1);
	}

	/**
	 * A1 (d): trusted devices. The victim logged in successfully once before the attack
	 * and kept the device cookie: its logins are charged to its device's bucket, which the
	 * attacker cannot reach, while the attacker stays capped by the account's bucket.
	 */
	@Test
	void loginWhenAccountUnderAttackThenTheOwnersTrustedDeviceGetsThrough() {
		HttpResponse<String> earlier = this.http.login(TargetedLoginAttack.VICTIM, TargetedLoginAttack.VICTIM_PASSWORD,
				TargetedLoginAttack.VICTIM_ADDRESS);
		assertThat(earlier.statusCode()).isEqualTo(200);
		String cookie = deviceCookie(earlier);
		this.clock.advance(Duration.ofHours(1));

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(new Victim(cookie, false), this.clock);

		Figures.record("A1 dual bucket + trusted device (HTTP, sample policy)", "%s", result.describe());
		assertThat(result.victimAdmitted()).isGreaterThanOrEqualTo(19);
		assertThat(result.attackerAdmitted())
			.isLessThanOrEqualTo((int) TargetedLoginAttack.accountBound(0.083333, 1));
		// The device token is the victim's account's only: one address with it still gets
		// one attempt on other accounts, its own bucket's.
		int sprayed = 0;
		for (int i = 0; i < 100; i++) {
			sprayed += (this.http.login("user-" + i, "guess", "198.51.100.77", "Cookie", cookie)
				.statusCode() != 429) ? 1 : 0;
		}
		assertThat(sprayed).isEqualTo(1);
	}

	/**
	 * A1 (e): a new device during the attack. The victim has no cookie and keeps the one
	 * a successful login hands out; until a login of its own gets through the account's
	 * drained bucket, it fares as without trusted devices.
	 */
	@Test
	void loginWhenOwnerComesFromANewDeviceDuringTheAttackThenReportedAsItIs() {
		TargetedLoginAttack.Result result = TargetedLoginAttack.run(new Victim(null, true), this.clock);

		Figures.record("A1 dual bucket + trusted devices, victim on a new device (HTTP, sample policy)", "%s",
				result.describe());
		assertThat(result.attackerAdmitted())
			.isLessThanOrEqualTo((int) TargetedLoginAttack.accountBound(0.083333, 1));
	}

	private static String deviceCookie(HttpResponse<String> response) {
		String setCookie = response.headers().firstValue("Set-Cookie").orElseThrow();
		return setCookie.substring(0, setCookie.indexOf(';'));
	}

	/**
	 * The login target of one arm: the attacker's guesses carry no cookie; the victim's
	 * logins carry its device cookie, if it has one, and keep a new one if told to.
	 */
	private final class Victim implements TargetedLoginAttack.LoginTarget {

		private @Nullable String cookie;

		private final boolean keepsNewCookies;

		Victim(@Nullable String cookie, boolean keepsNewCookies) {
			this.cookie = cookie;
			this.keepsNewCookies = keepsNewCookies;
		}

		@Override
		public boolean attempt(String username, String password, String from) {
			boolean victim = from.equals(TargetedLoginAttack.VICTIM_ADDRESS);
			HttpResponse<String> response = (victim && this.cookie != null)
					? TrustedProxyAttacksTest.this.http.login(username, password, from, "Cookie", this.cookie)
					: TrustedProxyAttacksTest.this.http.login(username, password, from);
			if (victim && this.keepsNewCookies && response.headers().firstValue("Set-Cookie").isPresent()) {
				this.cookie = deviceCookie(response);
			}
			return response.statusCode() != 429;
		}

	}

	/**
	 * A2 through a trusted proxy: whatever the client writes to the left of the proxy's
	 * entry, and whichever trusted hops follow, the right-most untrusted address pays.
	 */
	@Test
	void requestWhenClientSpoofsLeftOfForwardedForThenRightMostUntrustedAddressIsCharged() {
		String client = "203.0.113.50";
		List<String[]> variants = spoofedAheadOf(client, 200);
		int admitted = 0;
		for (String[] headers : variants) {
			admitted += (this.http.get("/api/orders/1/items", headers).statusCode() == 200) ? 1 : 0;
		}

		Figures.record("A2 trusted proxy", "%d spoofed variants ahead of one client: %d admitted (limit %d)",
				variants.size(), admitted, 20);
		assertThat(admitted).isEqualTo(20);
		// The proxy itself and other clients behind it keep their own budgets.
		assertThat(this.http.get("/api/orders/1/items", "X-Forwarded-For", "203.0.113.51")
			.headers()
			.firstValue("RateLimit")).hasValue("\"default\";r=19;t=1");
		assertThat(this.http.get("/api/orders/1/items").headers().firstValue("RateLimit"))
			.hasValue("\"default\";r=19;t=1");
	}

	/**
	 * Header sets that all name {@code client} as the right-most untrusted address.
	 */
	private static List<String[]> spoofedAheadOf(String client, int count) {
		SplittableRandom random = new SplittableRandom(42);
		List<String[]> variants = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String spoofed = random.nextInt(1, 224) + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
					+ random.nextInt(1, 255);
			String[] headers = switch (i % 6) {
				case 0 -> new String[] { "X-Forwarded-For", spoofed + ", " + client };
				case 1 -> new String[] { "X-Forwarded-For",
						"2001:db8:" + Integer.toHexString(i) + "::1, " + spoofed + ", " + client };
				case 2 -> new String[] { "X-Forwarded-For", "garbage-" + i + ", " + client + ", 127.0.0.1" };
				case 3 -> new String[] { "X-Forwarded-For", spoofed, "X-Forwarded-For", client };
				case 4 -> new String[] { "X-Forwarded-For", client, "Forwarded", "for=" + spoofed };
				default -> new String[] { "X-Forwarded-For", "127.0.0.1, " + spoofed + ", " + client + ":4711" };
			};
			variants.add(headers);
		}
		return variants;
	}

}
