package io.ratelimit.sample.adversarial;

import java.math.BigDecimal;
import java.util.List;

import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.AuthenticatedPrincipal;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A1 in process: the targeted-lockout scenario of {@link TargetedLoginAttack} against the
 * three ways of bucketing a login, on the core {@link RateLimiter} with the sample's login
 * policy (0.083333 rps, burst factor 2, so a capacity of one attempt). The starter cannot
 * be configured to key a login by the submitted username alone (DESIGN.md 3.2 forbids an
 * attacker-controlled primary key), so that arm is emulated here: the username is handed
 * to the limiter as if it were an authenticated principal. The per-address and dual arms
 * also run over HTTP ({@link LoginPerAddressOnlyTest}, {@link TrustedProxyAttacksTest}) and
 * must agree with these numbers.
 */
class LoginBucketingComparisonTest {

	private static final EndpointTemplate LOGIN = EndpointTemplate.of("POST", "/api/login");

	private static final BigDecimal LOGIN_RPS = new BigDecimal("0.083333");

	private final FakeClock clock = new FakeClock();

	private RateLimiter.Builder limiter() {
		PolicySettings settings = PolicySettings.of(BigDecimal.TEN, BigDecimal.valueOf(2), BigDecimal.valueOf(2));
		ReloadablePolicies policies = new ReloadablePolicies(
				() -> List.of(new PolicyRow("1", LOGIN.toString(), null, LOGIN_RPS, null)), settings, this.clock);
		policies.reload();
		return RateLimiter.builder((request) -> LOGIN, policies)
			.timeSource(this.clock)
			.buckets(LocalBucketStore.create(100_000, this.clock));
	}

	private static TargetedLoginAttack.LoginTarget target(RateLimiter limiter) {
		return (username, password, from) -> !limiter
			.evaluate(CoreRequest.of("POST", "/api/login", from).with("X-Username", username))
			.isRejected();
	}

	private static int oneAddressManyAccounts(RateLimiter limiter, int accounts) {
		int admitted = 0;
		for (int i = 0; i < accounts; i++) {
			admitted += limiter.evaluate(CoreRequest.of("POST", "/api/login", "198.51.100.99").with("X-Username",
					"user" + i)).isRejected() ? 0 : 1;
		}
		return admitted;
	}

	@Test
	void evaluateWhenKeyedPerAddressOnlyThenVictimKeepsAccessButGuessesAreUncapped() {
		RateLimiter limiter = limiter().build();

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(target(limiter), this.clock);
		int spray = oneAddressManyAccounts(limiter, 100);

		Figures.record("A1 (a) per-address only (in process)", "%s; one address trying 100 accounts: %d admitted",
				result.describe(), spray);
		assertThat(result.victimAdmitted()).isEqualTo(result.victimAttempts());
		assertThat(result.attackerAdmitted()).isGreaterThan((int) (10 * bound()));
		assertThat(spray).isEqualTo(1);
	}

	@Test
	void evaluateWhenKeyedPerUsernameOnlyThenGuessesCappedButOneAddressSpraysFreely() {
		IdentityResolver byUsername = IdentityResolver.builder()
			.authenticatedPrincipals((request) -> new AuthenticatedPrincipal(
					SubmittedIdentifier.of(request.header("X-Username")).value(), null))
			.build();
		RateLimiter limiter = limiter().identities(byUsername).build();

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(target(limiter), this.clock);
		int spray = oneAddressManyAccounts(limiter, 100);

		Figures.record("A1 (b) per-username only (in process, emulated)",
				"%s; one address trying 100 accounts: %d admitted", result.describe(), spray);
		assertThat(result.attackerAdmitted() + result.victimAdmitted()).isLessThanOrEqualTo((int) bound() + 1);
		assertThat(spray).isEqualTo(100);
	}

	@Test
	void evaluateWhenDualBucketThenGuessesAndSprayBothCapped() {
		RateLimiter limiter = limiter()
			.sensitiveEndpoint(LOGIN, (request) -> SubmittedIdentifier.of(request.header("X-Username")))
			.build();

		TargetedLoginAttack.Result result = TargetedLoginAttack.run(target(limiter), this.clock);
		int spray = oneAddressManyAccounts(limiter, 100);

		Figures.record("A1 (c) dual bucket (in process)", "%s; one address trying 100 accounts: %d admitted",
				result.describe(), spray);
		assertThat(result.attackerAdmitted()).isLessThanOrEqualTo((int) bound());
		assertThat(result.attackerAdmitted() + result.victimAdmitted()).isLessThanOrEqualTo((int) bound() + 1);
		assertThat(spray).isEqualTo(1);
	}

	private static long bound() {
		return TargetedLoginAttack.accountBound(LOGIN_RPS.doubleValue(), 1);
	}

}
