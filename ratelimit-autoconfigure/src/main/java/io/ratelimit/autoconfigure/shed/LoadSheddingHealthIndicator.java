package io.ratelimit.autoconfigure.shed;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The state of load shedding: the limit, the requests in flight, whether requests are
 * being shed, and the no-load latency the limit is computed against. Always UP: shedding
 * is the service protecting itself as designed, not a fault, and a health check that went
 * DOWN under load would take a replica out of rotation just when the others need it most.
 */
public class LoadSheddingHealthIndicator implements HealthIndicator {

	private final LoadShedder shedder;

	/**
	 * Creates the indicator.
	 * @param shedder the shedder reported
	 */
	public LoadSheddingHealthIndicator(LoadShedder shedder) {
		this.shedder = Objects.requireNonNull(shedder, "shedder must not be null");
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up()
			.withDetail("mode", this.shedder.isShadow() ? "shadow" : "enforce")
			.withDetail("limit", this.shedder.currentLimit())
			.withDetail("inFlight", this.shedder.inFlight())
			.withDetail("shedding", this.shedder.isShedding())
			.withDetail("probing", this.shedder.isProbing());
		Duration noLoad = this.shedder.noLoadLatency();
		if (noLoad != null) {
			health.withDetail("noLoadLatencyMillis", noLoad.toNanos() / 1_000_000.0);
		}
		for (Priority priority : Priority.values()) {
			health.withDetail("shed" + label(priority), this.shedder.shed(priority));
		}
		return health.build();
	}

	private static String label(Priority priority) {
		String name = priority.name();
		return name.charAt(0) + name.substring(1).toLowerCase(Locale.ROOT);
	}

}
