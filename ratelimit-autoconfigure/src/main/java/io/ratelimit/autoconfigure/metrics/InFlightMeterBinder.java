package io.ratelimit.autoconfigure.metrics;

import java.util.Objects;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.concurrency.PermitStore;

/**
 * Publishes the state of the permit stores of in-flight limits, read when the registry is
 * scraped, never on the request path, each tagged {@code store} = {@code local} or
 * {@code global} (the second only when a shared store is configured):
 * <ul>
 * <li>{@code ratelimit.in-flight.permits} (gauge): permits held by requests in progress;</li>
 * <li>{@code ratelimit.in-flight.keys} (gauge): callers holding at least one;</li>
 * <li>{@code ratelimit.in-flight.refused-for-room} (function counter): requests refused
 * because the store held {@code ratelimit.in-flight.maximum-keys} callers already.</li>
 * </ul>
 * Refusals by an in-flight limit are counted with the other rejections, by
 * {@code ratelimit.rejections} tagged with the limit's name.
 */
public class InFlightMeterBinder implements MeterBinder {

	private final RateLimiter limiter;

	/**
	 * Creates a binder.
	 * @param limiter the limiter whose permit stores are published
	 */
	public InFlightMeterBinder(RateLimiter limiter) {
		this.limiter = Objects.requireNonNull(limiter, "limiter must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		bind(registry, this.limiter.permits(), "local");
		if (this.limiter.globalPermits() != this.limiter.permits()) {
			bind(registry, this.limiter.globalPermits(), "global");
		}
	}

	private static void bind(MeterRegistry registry, PermitStore store, String tag) {
		Gauge.builder("ratelimit.in-flight.permits", store, PermitStore::permitsHeld)
			.description("Permits of in-flight limits held by requests in progress")
			.baseUnit("permits")
			.tag("store", tag)
			.register(registry);
		Gauge.builder("ratelimit.in-flight.keys", store, PermitStore::keys)
			.description("Callers holding at least one permit of an in-flight limit")
			.tag("store", tag)
			.register(registry);
		FunctionCounter.builder("ratelimit.in-flight.refused-for-room", store, PermitStore::refusedForRoom)
			.description("Requests refused because the permit store held its maximum of callers")
			.tag("store", tag)
			.register(registry);
	}

}
