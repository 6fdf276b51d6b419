package io.ratelimit.autoconfigure.shed;

import java.util.Locale;
import java.util.Objects;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;

/**
 * Meters of load shedding: the concurrency limit, the requests in flight, and the requests
 * shed by priority class (tagged {@code mode=shadow} when they were only counted). Tags come
 * from the three classes and two modes only.
 */
public class SheddingMeterBinder implements MeterBinder {

	private final LoadShedder shedder;

	/**
	 * Creates the meters of a shedder.
	 * @param shedder the shedder
	 */
	public SheddingMeterBinder(LoadShedder shedder) {
		this.shedder = Objects.requireNonNull(shedder, "shedder must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("ratelimit.shedding.limit", this.shedder, LoadShedder::currentLimit)
			.description("Adaptive concurrency limit in force (its minimum while the no-load latency is measured)")
			.baseUnit("requests")
			.register(registry);
		Gauge.builder("ratelimit.shedding.in.flight", this.shedder, LoadShedder::inFlight)
			.description("Admitted requests whose response has not completed")
			.baseUnit("requests")
			.register(registry);
		String mode = this.shedder.isShadow() ? "shadow" : "enforce";
		for (Priority priority : Priority.values()) {
			FunctionCounter.builder("ratelimit.shedding.shed", this.shedder, (shedder) -> shedder.shed(priority))
				.description("Requests shed under overload (in shadow mode: that would have been), by priority class")
				.baseUnit("requests")
				.tag("priority", priority.name().toLowerCase(Locale.ROOT))
				.tag("mode", mode)
				.register(registry);
		}
	}

}
