package io.ratelimit.client;

import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** What a response's fields tell the strategies, malformed ones included. */
class FeedbackTest {

	private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

	@Test
	void ofWhenServerFieldsThenRemainingResetQuotaAndWindow() {
		Feedback feedback = Feedback.of(429, Map.of("Retry-After", "1", "RateLimit", "\"default\";r=3;t=1",
				"RateLimit-Policy", "\"default\";q=20;w=2")::get, NOW);

		assertThat(feedback.isRefused()).isTrue();
		assertThat(feedback.retryAfterMillis()).isEqualTo(1000);
		assertThat(feedback.fields()).isEqualTo(new RateLimitFields(3, 1, 20, 2));
		assertThat(feedback.fields().ratePerSecond()).isEqualTo(10);
	}

	@Test
	void parseWhenSeveralPoliciesThenTightestWithItsOwnPolicy() {
		RateLimitFields fields = RateLimitFields.parse("\"POST /login\";r=9;t=1, \"POST /login, by name\";r=0;t=30",
				"\"POST /login\";q=10;w=1, \"POST /login, by name\";q=5;w=300");

		assertThat(fields).isEqualTo(new RateLimitFields(0, 30, 5, 300));
	}

	@Test
	void parseWhenLayeredLimitsThenTheOneAllowingTheLowestRateThoughOthersHaveLessLeft() {
		// 180 of 200 per 2 s, 46 of 50 per hour, 10 of 30 points per minute: the hour binds.
		RateLimitFields fields = RateLimitFields.parse(
				"\"default\";r=180;t=1, \"hourly\";r=46;t=72, \"points\";r=10;t=2",
				"\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"points\";q=30;w=60");

		assertThat(fields).isEqualTo(new RateLimitFields(46, 72, 50, 3600));
	}

	@Test
	void parseWhenALayeredLimitRefusedThenThatOne() {
		RateLimitFields fields = RateLimitFields.parse(
				"\"default\";r=180;t=1, \"hourly\";r=46;t=72, \"content-creation\";r=0;t=15",
				"\"default\";q=200;w=2, \"hourly\";q=50;w=3600, \"content-creation\";q=4;w=60");

		assertThat(fields).isEqualTo(new RateLimitFields(0, 15, 4, 60));
	}

	@Test
	void parseWhenAConcurrencyLimitIsFullThenPacedByTheRateLimits() {
		// Two requests in progress of two: waiting does not free a permit, finishing does.
		RateLimitFields fields = RateLimitFields.parse("\"default\";r=180;t=1, \"in-flight\";r=0;t=1",
				"\"default\";q=200;w=2, \"in-flight\";q=2;qu=\"concurrent-requests\"");

		assertThat(fields).isEqualTo(new RateLimitFields(180, 1, 200, 2));
	}

	@Test
	void parseWhenOnlyAConcurrencyLimitThenNull() {
		assertThat(RateLimitFields.parse("\"in-flight\";r=0;t=1", "\"in-flight\";q=2;qu=\"concurrent-requests\""))
			.isNull();
	}

	@Test
	void parseWhenNoPolicyFieldThenQuotaUnknown() {
		RateLimitFields fields = RateLimitFields.parse("default;r=5;t=0", null);

		assertThat(fields).isEqualTo(new RateLimitFields(5, 0, -1, -1));
		assertThat(fields.ratePerSecond()).isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "\"default\"", "\"default\";r=-1", "\"default\";r=abc;t=1", "\"default\";r=1.5",
			"\"default\";r", ";r=1", "\"default\";r=99999999999999999999" })
	void parseWhenNoUsableItemThenNull(String rateLimit) {
		assertThat(RateLimitFields.parse(rateLimit, "\"default\";q=20;w=2")).isNull();
	}

	@Test
	void ofWhenRetryAfterIsDateThenMillisFromNow() {
		Feedback feedback = Feedback.of(429, Map.of("Retry-After", "Thu, 01 Jan 2026 00:00:05 GMT")::get, NOW);

		assertThat(feedback.retryAfterMillis()).isEqualTo(5000);
		assertThat(feedback.fields()).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "soon", "-1", "1.5", "86401", "9999999", "Thu, 01 Jan 2026 25:00:00 GMT" })
	void ofWhenRetryAfterMalformedOrAbsurdThenIgnored(String retryAfter) {
		Feedback feedback = Feedback.of(429, Map.of("Retry-After", retryAfter)::get, NOW);

		assertThat(feedback.retryAfterMillis()).isEqualTo(-1);
	}

}
