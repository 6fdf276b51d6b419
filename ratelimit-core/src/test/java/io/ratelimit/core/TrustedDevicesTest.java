package io.ratelimit.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.DeviceTokens;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trusted devices and refunds of a sensitive endpoint: a login at 1 rps with a burst
 * factor of 3, so three attempts per bucket, then one a second (the clock stands still).
 */
class TrustedDevicesTest {

	private static final EndpointTemplate LOGIN = EndpointTemplate.of("POST", "/api/login");

	private final FakeTimeSource time = new FakeTimeSource();

	private final DeviceTokens tokens = new DeviceTokens(KeyedHasher.withSecret("a-device-token-secret-of-32-bytes"),
			Duration.ofDays(30), this.time);

	private final RateLimiter limiter = limiter(true);

	private RateLimiter limiter(boolean trustedDevices) {
		PolicySettings settings = PolicySettings.of(BigDecimal.TEN, BigDecimal.ONE, BigDecimal.valueOf(3));
		ReloadablePolicies policies = new ReloadablePolicies(
				() -> List.of(new PolicyRow("1", "POST /api/login", null, BigDecimal.ONE, null)), settings, this.time);
		policies.reload();
		RateLimiter.Builder builder = RateLimiter.builder((request) -> LOGIN, policies)
			.timeSource(this.time)
			.buckets(LocalBucketStore.create(1000, this.time))
			.sensitiveEndpoint(LOGIN, (request) -> SubmittedIdentifier.of(request.header("X-User")));
		if (trustedDevices) {
			builder.trustedDevices(this.tokens, "RateLimit-Device", "rl_device");
		}
		return builder.build();
	}

	private static TestRequest login(String from, String user) {
		return TestRequest.of("POST", "/api/login").from(from).header("X-User", user);
	}

	/** Sends a login the application accepts, and returns the device token it earned. */
	private @Nullable String succeed(TestRequest request) {
		Decision decision = this.limiter.evaluate(request);
		assertThat(decision.isRejected()).as("successful login admitted").isFalse();
		LoginAttempt attempt = decision.attempt();
		assertThat(attempt).isNotNull();
		return attempt.complete(true);
	}

	private int guess(int attempts, String user) {
		int admitted = 0;
		for (int i = 0; i < attempts; i++) {
			Decision decision = this.limiter.evaluate(login("198.51.100." + (i % 250), user));
			if (!decision.isRejected()) {
				admitted++;
				assertThat(decision.attempt().complete(false)).isNull();
			}
		}
		return admitted;
	}

	@Test
	void evaluateWhenAccountUnderAttackThenItsTrustedDeviceStillGetsThrough() {
		String device = succeed(login("203.0.113.7", "alice"));
		assertThat(device).isNotNull();

		assertThat(guess(100, "alice")).isEqualTo(3);

		// The owner's device has a bucket of its own; a new device shares the exhausted one.
		assertThat(this.limiter.evaluate(login("203.0.113.7", "alice").header("RateLimit-Device", device)).isRejected())
			.isFalse();
		assertThat(this.limiter.evaluate(login("203.0.113.8", "alice")).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenTokenComesAsCookieThenSameDevice() {
		String device = succeed(login("203.0.113.7", "alice"));
		guess(10, "alice");

		TestRequest withCookie = login("203.0.113.7", "alice").header("Cookie", "theme=dark; rl_device=" + device);
		TestRequest twice = login("203.0.113.7", "alice")
			.header("Cookie", "rl_device=" + device + "; rl_device=" + device);

		assertThat(this.limiter.evaluate(withCookie).isRejected()).isFalse();
		assertThat(this.limiter.evaluate(twice).isRejected()).isTrue();
	}

	@Test
	void evaluateWhenTokenOfAnotherAccountOrTamperedThenChargedToTheSharedBucket() {
		String mallorys = succeed(login("198.51.100.1", "mallory"));
		String alices = succeed(login("203.0.113.7", "alice"));
		guess(10, "alice");

		String tampered = alices.substring(0, 10) + ((alices.charAt(10) == 'A') ? 'B' : 'A') + alices.substring(11);
		for (String token : List.of(mallorys, tampered, alices + alices, "")) {
			assertThat(this.limiter.evaluate(login("198.51.100.1", "alice").header("RateLimit-Device", token))
				.isRejected()).as("token %s", token.length()).isTrue();
		}
	}

	@Test
	void completeWhenSucceededThenAccountRefundedSoLoginsNeverSpendTheGuessingBudget() {
		// Ten successful logins from ten addresses in a row: the account's three tokens
		// come back every time. Without the refund, the fourth would be refused.
		for (int i = 0; i < 10; i++) {
			succeed(login("203.0.113." + i, "alice"));
		}

		assertThat(guess(100, "alice")).isEqualTo(3);
	}

	@Test
	void completeWhenFailedThenChargeStaysAndNoToken() {
		Decision decision = this.limiter.evaluate(login("203.0.113.7", "alice"));

		assertThat(decision.attempt().complete(false)).isNull();
		assertThat(guess(100, "alice")).isEqualTo(2);
	}

	@Test
	void completeWhenCalledAgainThenRefundedOnce() {
		LoginAttempt attempt = this.limiter.evaluate(login("203.0.113.7", "alice")).attempt();

		assertThat(attempt.complete(true)).isNotNull();
		assertThat(attempt.complete(true)).isNull();
		assertThat(guess(100, "alice")).isEqualTo(3);
	}

	@Test
	void completeWhenAttemptCameFromATrustedDeviceThenNoNewToken() {
		String device = succeed(login("203.0.113.7", "alice"));

		assertThat(succeed(login("203.0.113.7", "alice").header("RateLimit-Device", device))).isNull();
	}

	@Test
	void evaluateWhenRejectedOrUnreadableThenNoAttemptToComplete() {
		guess(3, "alice");

		assertThat(this.limiter.evaluate(login("203.0.113.7", "alice")).attempt()).isNull();
		assertThat(this.limiter.evaluate(TestRequest.of("POST", "/api/login").from("203.0.113.9")).attempt())
			.isNull();
	}

	@Test
	void completeWhenTrustedDevicesOffThenRefundButNoToken() {
		RateLimiter plain = limiter(false);
		for (int i = 0; i < 10; i++) {
			LoginAttempt attempt = plain.evaluate(login("203.0.113." + i, "alice")).attempt();
			assertThat(attempt.complete(true)).isNull();
		}
	}

	@Test
	void toStringWhenPrintedThenNoAccount() {
		assertThat(this.limiter.evaluate(login("203.0.113.7", "alice")).attempt()).asString().doesNotContain("alice");
	}

}
