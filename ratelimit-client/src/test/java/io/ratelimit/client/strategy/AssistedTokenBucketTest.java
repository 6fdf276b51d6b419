package io.ratelimit.client.strategy;

import java.time.Duration;

import io.ratelimit.client.PacingClock;
import io.ratelimit.client.Target;
import io.ratelimit.client.fleet.LocalFleetTelemetry;
import io.ratelimit.core.FakeTimeSource;
import org.junit.jupiter.api.Test;

import static io.ratelimit.client.strategy.Responses.SECOND;
import static io.ratelimit.client.strategy.Responses.ok;
import static io.ratelimit.client.strategy.Responses.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * AATB step by step on a virtual clock, with a fleet of two (this client, "a", and "b",
 * whose reports the test writes), ω = 30 s, α = 1.4, β = 1.2, jitter at the top of its range.
 */
class AssistedTokenBucketTest {

	private static final double PER_MINUTE = 1.0 / 60;

	private static final Target TARGET = new Target("api.example.com", "GET /api/search");

	private static final Duration INTERVAL = Duration.ofSeconds(30);

	private final FakeTimeSource time = new FakeTimeSource();

	private final PacingClock clock = new PacingClock() {

		@Override
		public long nanoTime() {
			return AssistedTokenBucketTest.this.time.nanoTime();
		}

		@Override
		public long currentTimeMillis() {
			return AssistedTokenBucketTest.this.time.currentTimeMillis();
		}

	};

	private final LocalFleetTelemetry telemetry = new LocalFleetTelemetry(this.clock, INTERVAL);

	private final AssistedTokenBucket aatb = new AssistedTokenBucket(AdaptiveSettings.assistedDefaults(),
			this.telemetry, TARGET, "a", INTERVAL.toNanos(), new MaximalRandom(), now());

	private long now() {
		return this.time.nanoTime();
	}

	private void advanceSeconds(long seconds) {
		this.time.advance(Duration.ofSeconds(seconds));
	}

	@Test
	void onFeedbackWhenFleetUnknownThenBehavesAsAtb() {
		assertThat(this.aatb.tryAcquire(now())).isZero();
		this.aatb.onFeedback(now(), ok()); // ATB: max(15 + 0.6, 15 * 1.4) = 21
		assertThat(this.aatb.rate()).isCloseTo(21 * PER_MINUTE, within(1e-9));

		this.aatb.onFeedback(now(), refused()); // ATB: halved, bucket emptied
		assertThat(this.aatb.rate()).isCloseTo(10.5 * PER_MINUTE, within(1e-9));
	}

	@Test
	void tryAcquireWhenSomeoneWasRefusedLastWindowThenHoldsOffAboutOneInterval() {
		this.telemetry.report(TARGET, "b", 10, true);
		advanceSeconds(30);

		long wait = this.aatb.tryAcquire(now());

		assertThat(wait).as("held until ω + 2 s, woken at the next routine").isEqualTo(30 * SECOND);
		advanceSeconds(31);
		assertThat(this.aatb.tryAcquire(now())).as("still held at 61 s").isPositive();
		advanceSeconds(1);
		assertThat(this.aatb.tryAcquire(now())).as("free at 62 s").isZero();
	}

	@Test
	void tryAcquireWhenFleetCalmAndOwnLoadLightThenRateGrowsByAlphaOncePerInterval() {
		assertThat(this.aatb.tryAcquire(now())).isZero(); // a sends 1
		this.telemetry.report(TARGET, "b", 10, false);
		advanceSeconds(30);

		this.aatb.tryAcquire(now()); // routine: a's load 1 < 0.75 * 10 -> α

		assertThat(this.aatb.rate()).isCloseTo(21 * PER_MINUTE, within(1e-9));
		this.aatb.onFeedback(now(), ok());
		assertThat(this.aatb.rate()).as("no per-success increase while the fleet is known")
			.isCloseTo(21 * PER_MINUTE, within(1e-9));
	}

	@Test
	void onFeedbackWhenRefusedWithFleetKnownThenCutKeepsOneTokenAndWaitsOutOthersShare() {
		this.telemetry.report(TARGET, "b", 60, false); // others: 60 requests per 30 s = 2/s
		advanceSeconds(30);
		this.aatb.tryAcquire(now()); // reports 0 for a, reads a calm window: 15 * 1.4 = 21
		advanceSeconds(10);

		this.aatb.onFeedback(now(), refused()); // a's load 0 < 0.5 * 60 -> rate / 2

		assertThat(this.aatb.rate()).isCloseTo(10.5 * PER_MINUTE, within(1e-9));
		// One refused client (a, reported at once) over others' 2/s, plus up to 1 s of jitter.
		assertThat(this.aatb.tryAcquire(now())).isBetween(1_400_000_000L, 1_500_000_000L);
	}

}
