package io.ratelimit.core.identity;

import java.time.Duration;

import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DeviceTokensTest {

	private final FakeTimeSource time = new FakeTimeSource();

	private final DeviceTokens tokens = new DeviceTokens(KeyedHasher.withSecret("a-device-token-secret-of-32-bytes"),
			Duration.ofDays(30), this.time);

	@Test
	void verifyWhenIssuedForTheAccountThenNamesOneDevice() {
		String token = this.tokens.issue("alice");

		assertThat(token).hasSize(DeviceTokens.TOKEN_LENGTH).matches("[A-Za-z0-9_-]+");
		assertThat(this.tokens.verify(token, "alice")).isNotNull().isEqualTo(this.tokens.verify(token, "alice"));
	}

	@Test
	void issueWhenCalledTwiceThenEachTokenIsADeviceOfItsOwn() {
		String first = this.tokens.verify(this.tokens.issue("alice"), "alice");
		String second = this.tokens.verify(this.tokens.issue("alice"), "alice");

		assertThat(first).isNotNull().isNotEqualTo(second);
	}

	@Test
	void verifyWhenTokenOfAnotherAccountThenNoDevice() {
		assertThat(this.tokens.verify(this.tokens.issue("mallory"), "alice")).isNull();
	}

	@Test
	void verifyWhenAnyCharacterChangedThenNoDevice() {
		String token = this.tokens.issue("alice");
		for (int i = 0; i < token.length(); i++) {
			char replacement = (token.charAt(i) == 'A') ? 'B' : 'A';
			String tampered = token.substring(0, i) + replacement + token.substring(i + 1);
			assertThat(this.tokens.verify(tampered, "alice")).as("token changed at %d", i).isNull();
		}
	}

	@Test
	void verifyWhenExpiredThenNoDevice() {
		String token = this.tokens.issue("alice");

		this.time.advance(Duration.ofDays(30).minusSeconds(1));
		assertThat(this.tokens.verify(token, "alice")).isNotNull();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.tokens.verify(token, "alice")).isNull();
	}

	@Test
	void verifyWhenSecretRotatedThenNoDevice() {
		String token = this.tokens.issue("alice");
		DeviceTokens rotated = new DeviceTokens(KeyedHasher.withSecret("the-next-device-token-secret-32b"),
				Duration.ofDays(30), this.time);

		assertThat(rotated.verify(token, "alice")).isNull();
	}

	@Test
	void verifyWhenMalformedOrOversizedThenNoDevice() {
		String token = this.tokens.issue("alice");

		assertThat(this.tokens.verify(null, "alice")).isNull();
		assertThat(this.tokens.verify("", "alice")).isNull();
		assertThat(this.tokens.verify(token + "A", "alice")).isNull();
		assertThat(this.tokens.verify(token.substring(1), "alice")).isNull();
		assertThat(this.tokens.verify(token.repeat(1000), "alice")).isNull();
		assertThat(this.tokens.verify(token.substring(0, 63) + "=", "alice")).isNull();
		assertThat(this.tokens.verify(token.substring(0, 63) + "+", "alice")).isNull();
		assertThat(this.tokens.verify("é".repeat(64), "alice")).isNull();
	}

	@Test
	void toStringWhenPrintedThenNoSecret() {
		assertThat(this.tokens.toString()).doesNotContain("a-device-token").contains("PT720H");
	}

	@Test
	void newWhenLifetimeUnderOneSecondThenRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DeviceTokens(KeyedHasher.withRandomSecret(), Duration.ofMillis(999), this.time))
			.withMessageContaining("at least one second");
	}

}
