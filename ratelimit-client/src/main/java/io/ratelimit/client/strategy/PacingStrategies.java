package io.ratelimit.client.strategy;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

import io.ratelimit.client.PacingStrategy;
import io.ratelimit.client.fleet.FleetTelemetry;

/**
 * The strategies of the library. {@link #headerAware()} is the one to use against a server
 * that sends the {@code RateLimit} fields (this project's limiter does); the others are the
 * strategies of the CCNC 2026 study "Rethinking HTTP API Rate Limiting: A Client-Side
 * Approach", for servers that send nothing, and for comparison.
 */
public final class PacingStrategies {

	/** The report interval of the assisted variant in the study ({@code ω}). */
	public static final Duration DEFAULT_REPORT_INTERVAL = Duration.ofSeconds(30);

	private static final long WINDOWED_BACKOFF_WINDOW_NANOS = Duration.ofSeconds(60).toNanos();

	private PacingStrategies() {
	}

	/**
	 * Returns the strategy that follows the {@code RateLimit} fields and {@code Retry-After},
	 * and behaves as the adaptive token bucket against a server that sends no fields.
	 * @return the header-aware strategy
	 */
	public static PacingStrategy headerAware() {
		return headerAware(AdaptiveSettings.defaults());
	}

	/**
	 * Returns the header-aware strategy with the given fallback parameters.
	 * @param fallback the adaptive token bucket used while a server sends no fields
	 * @return the header-aware strategy
	 */
	public static PacingStrategy headerAware(AdaptiveSettings fallback) {
		Objects.requireNonNull(fallback, "fallback must not be null");
		return (target, random, now) -> new HeaderAwarePacing(fallback, random, now);
	}

	/**
	 * Returns UB: exponential backoff after refusals, nothing else.
	 * @param settings the backoff
	 * @return the unlimited-backoff strategy
	 */
	public static PacingStrategy unlimitedBackoff(BackoffSettings settings) {
		Objects.requireNonNull(settings, "settings must not be null");
		return (target, random, now) -> new UnlimitedBackoff(settings, random);
	}

	/**
	 * Returns WB: {@link #unlimitedBackoff} that also sends at most {@code maximumRequests}
	 * in any 60 seconds.
	 * @param settings the backoff
	 * @param maximumRequests the most requests in 60 seconds (15 in the study)
	 * @return the windowed-backoff strategy
	 */
	public static PacingStrategy windowedBackoff(BackoffSettings settings, int maximumRequests) {
		Objects.requireNonNull(settings, "settings must not be null");
		if (maximumRequests < 1) {
			throw new IllegalArgumentException("maximumRequests must be at least 1, but was " + maximumRequests);
		}
		return (target, random, now) -> new WindowedBackoff(settings, maximumRequests, WINDOWED_BACKOFF_WINDOW_NANOS,
				random);
	}

	/**
	 * Returns ATB, the adaptive token bucket.
	 * @param settings its parameters, e.g. {@link AdaptiveSettings#defaults()}
	 * @return the adaptive-token-bucket strategy
	 */
	public static PacingStrategy adaptiveTokenBucket(AdaptiveSettings settings) {
		Objects.requireNonNull(settings, "settings must not be null");
		return (target, random, now) -> new AdaptiveTokenBucket(settings, random, now);
	}

	/**
	 * Returns AATB, the adaptive token bucket assisted by fleet telemetry, with the study's
	 * parameters, a report interval of 30 seconds and a random client id.
	 * @param telemetry where the fleet shares its reports
	 * @return the assisted strategy
	 */
	public static PacingStrategy assistedTokenBucket(FleetTelemetry telemetry) {
		return assistedTokenBucket(AdaptiveSettings.assistedDefaults(), telemetry, DEFAULT_REPORT_INTERVAL,
				UUID.randomUUID().toString());
	}

	/**
	 * Returns AATB with the given parameters.
	 * @param settings its parameters, e.g. {@link AdaptiveSettings#assistedDefaults()}
	 * @param telemetry where the fleet shares its reports
	 * @param reportInterval how often a client reports ({@code ω}), the telemetry's window
	 * @param clientId this client's id in the fleet, unique among its processes
	 * @return the assisted strategy
	 */
	public static PacingStrategy assistedTokenBucket(AdaptiveSettings settings, FleetTelemetry telemetry,
			Duration reportInterval, String clientId) {
		Objects.requireNonNull(settings, "settings must not be null");
		Objects.requireNonNull(telemetry, "telemetry must not be null");
		Objects.requireNonNull(clientId, "clientId must not be null");
		if (reportInterval == null || reportInterval.toMillis() < 1) {
			throw new IllegalArgumentException("reportInterval must be at least 1 ms, but was " + reportInterval);
		}
		long intervalNanos = reportInterval.toNanos();
		return (target, random, now) -> new AssistedTokenBucket(settings, telemetry, target, clientId, intervalNanos,
				random, now);
	}

}
