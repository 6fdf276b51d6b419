package io.ratelimit.autoconfigure.metrics;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.core.TimeSource;
import io.ratelimit.core.identity.ReloadableApiKeys;

/**
 * Publishes the state of the API keys held in memory, read when the registry is scraped:
 * <ul>
 * <li>{@code ratelimit.api-keys.active} (gauge): active keys in use;</li>
 * <li>{@code ratelimit.api-keys.reloads} (function counters), tagged {@code result} =
 * {@code success} or {@code failure};</li>
 * <li>{@code ratelimit.api-keys.age} (time gauge): time since the keys in use were read;
 * not a number before the first load;</li>
 * <li>{@code ratelimit.api-keys.over-limit} (gauge): 1 while the key table holds more active
 * keys than {@code ratelimit.api-key.maximum-keys}, so that every reload fails and revoked
 * keys stay valid; 0 otherwise. Alert on it: it does not pass by itself.</li>
 * </ul>
 */
public class ApiKeyMeterBinder implements MeterBinder {

	private final ReloadableApiKeys keys;

	private final TimeSource time;

	/**
	 * Creates a binder.
	 * @param keys the API keys the limiter uses
	 * @param time the clock the age is measured with
	 */
	public ApiKeyMeterBinder(ReloadableApiKeys keys, TimeSource time) {
		this.keys = Objects.requireNonNull(keys, "keys must not be null");
		this.time = Objects.requireNonNull(time, "time must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("ratelimit.api-keys.active", this.keys, ReloadableApiKeys::size)
			.description("Active API keys held in memory")
			.baseUnit("keys")
			.register(registry);
		FunctionCounter.builder("ratelimit.api-keys.reloads", this.keys, ReloadableApiKeys::loads)
			.description("API key reloads, by result")
			.tag("result", "success")
			.register(registry);
		FunctionCounter.builder("ratelimit.api-keys.reloads", this.keys, ReloadableApiKeys::failedReloads)
			.description("API key reloads, by result")
			.tag("result", "failure")
			.register(registry);
		Gauge.builder("ratelimit.api-keys.over-limit", this.keys, (keys) -> keys.overLimit() ? 1 : 0)
			.description("1 while the key table holds more active keys than ratelimit.api-key.maximum-keys: "
					+ "reloads fail and revoked keys stay valid")
			.register(registry);
		TimeGauge.builder("ratelimit.api-keys.age", this, TimeUnit.MILLISECONDS, ApiKeyMeterBinder::ageMillis)
			.description("Time since the API keys in use were read; grows while reloads fail")
			.register(registry);
	}

	private double ageMillis() {
		Instant loadedAt = this.keys.loadedAt();
		return (loadedAt != null) ? Math.max(0, this.time.currentTimeMillis() - loadedAt.toEpochMilli()) : Double.NaN;
	}

}
