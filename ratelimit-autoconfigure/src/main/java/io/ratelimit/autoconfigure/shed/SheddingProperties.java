package io.ratelimit.autoconfigure.shed;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.shed.Priority;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of load shedding: an adaptive, application-wide concurrency limit that
 * refuses the lowest priority class first, with 503, when the service is overloaded.
 */
@ConfigurationProperties("ratelimit.shedding")
public class SheddingProperties {

	/**
	 * Whether to shed load under an adaptive concurrency limit.
	 */
	private boolean enabled;

	/**
	 * Whether shedding is only computed and counted, never enforced.
	 */
	private boolean shadow;

	/**
	 * Endpoint templates of each priority class ('critical', 'default', 'sheddable'), in
	 * the syntax of ratelimit.groups, e.g. 'POST /api/payments'. Unlisted endpoints are
	 * 'default'; requests no endpoint serves (UNKNOWN) are always 'sheddable'.
	 */
	private Map<Priority, List<String>> priorities = new EnumMap<>(Priority.class);

	/**
	 * Smallest concurrency limit; also the limit while the no-load latency is re-measured.
	 */
	private int minLimit = 4;

	/**
	 * Concurrency limit at start, before any latency was measured.
	 */
	private int initialLimit = 20;

	/**
	 * Largest concurrency limit; no more than the server's request threads is useful.
	 */
	private int maxLimit = 200;

	/**
	 * Share of the limit that only CRITICAL requests may use.
	 */
	private double criticalReserve = 0.2;

	/**
	 * Further share of the limit that SHEDDABLE requests may not use, so they are shed
	 * before DEFAULT ones.
	 */
	private double defaultReserve = 0.2;

	/**
	 * Retry-After of a shed request, rounded up to whole seconds.
	 */
	private Duration retryAfter = Duration.ofSeconds(1);

	/**
	 * How the no-load latency is re-measured.
	 */
	private final Probe probe = new Probe();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isShadow() {
		return this.shadow;
	}

	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	public Map<Priority, List<String>> getPriorities() {
		return this.priorities;
	}

	public void setPriorities(Map<Priority, List<String>> priorities) {
		this.priorities = priorities;
	}

	public int getMinLimit() {
		return this.minLimit;
	}

	public void setMinLimit(int minLimit) {
		this.minLimit = minLimit;
	}

	public int getInitialLimit() {
		return this.initialLimit;
	}

	public void setInitialLimit(int initialLimit) {
		this.initialLimit = initialLimit;
	}

	public int getMaxLimit() {
		return this.maxLimit;
	}

	public void setMaxLimit(int maxLimit) {
		this.maxLimit = maxLimit;
	}

	public double getCriticalReserve() {
		return this.criticalReserve;
	}

	public void setCriticalReserve(double criticalReserve) {
		this.criticalReserve = criticalReserve;
	}

	public double getDefaultReserve() {
		return this.defaultReserve;
	}

	public void setDefaultReserve(double defaultReserve) {
		this.defaultReserve = defaultReserve;
	}

	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	public void setRetryAfter(Duration retryAfter) {
		this.retryAfter = retryAfter;
	}

	public Probe getProbe() {
		return this.probe;
	}

	public static class Probe {

		/**
		 * Time between two measurements of the no-load latency.
		 */
		private Duration interval = Duration.ofSeconds(60);

		/**
		 * Up to this share of the interval is added at random to each wait, so that
		 * replicas do not measure in step.
		 */
		private double jitter = 0.15;

		/**
		 * Answered requests, admitted at the minimum limit, whose fastest is the new no-load
		 * latency.
		 */
		private int samples = 25;

		/**
		 * Longest time a measurement holds the limit at its minimum.
		 */
		private Duration maxDuration = Duration.ofSeconds(2);

		/**
		 * Concurrency limit while the no-load latency is measured: at most the parallelism
		 * of the service's bottleneck (a pool's connections), so that the requests measured
		 * do not queue. The smallest limit (min-limit) if not set.
		 */
		private @Nullable Integer limit;

		public @Nullable Integer getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Integer limit) {
			this.limit = limit;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

		public int getSamples() {
			return this.samples;
		}

		public void setSamples(int samples) {
			this.samples = samples;
		}

		public Duration getMaxDuration() {
			return this.maxDuration;
		}

		public void setMaxDuration(Duration maxDuration) {
			this.maxDuration = maxDuration;
		}

	}

}
