package io.ratelimit.client.experiment;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.ratelimit.client.PacingClock;
import io.ratelimit.client.PacingStrategy;
import io.ratelimit.client.fleet.LocalFleetTelemetry;
import io.ratelimit.client.strategy.AdaptiveSettings;
import io.ratelimit.client.strategy.BackoffSettings;
import io.ratelimit.client.strategy.PacingStrategies;

/** The strategies the experiment compares, with the study's parameters. */
enum Strategies {

	UB((clock) -> PacingStrategies.unlimitedBackoff(BackoffSettings.defaults())),

	WB((clock) -> PacingStrategies.windowedBackoff(BackoffSettings.defaults(), 15)),

	ATB((clock) -> PacingStrategies.adaptiveTokenBucket(AdaptiveSettings.defaults())),

	AATB(Strategies::assisted),

	HEADER_AWARE((clock) -> PacingStrategies.headerAware());

	private final Function<PacingClock, PacingStrategy> factory;

	Strategies(Function<PacingClock, PacingStrategy> factory) {
		this.factory = factory;
	}

	Function<PacingClock, PacingStrategy> factory() {
		return this.factory;
	}

	/** One fleet on the emulation's clock; each client of the trace is a fleet member of its own. */
	private static PacingStrategy assisted(PacingClock clock) {
		Duration interval = PacingStrategies.DEFAULT_REPORT_INTERVAL;
		LocalFleetTelemetry telemetry = new LocalFleetTelemetry(clock, interval);
		AtomicInteger clients = new AtomicInteger();
		return (target, random, now) -> PacingStrategies
			.assistedTokenBucket(AdaptiveSettings.assistedDefaults(), telemetry, interval,
					"client-" + clients.incrementAndGet())
			.newPacing(target, random, now);
	}

}
