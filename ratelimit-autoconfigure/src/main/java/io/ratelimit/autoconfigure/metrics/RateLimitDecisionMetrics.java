package io.ratelimit.autoconfigure.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.Decision;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Counts the decisions of the rate-limit filter as {@code ratelimit.decisions}, tagged by
 * {@code endpoint} (the template, never the raw path) and {@code outcome}
 * ({@code allowed}, {@code rejected}, {@code shadow_rejected}), the rejections again as
 * {@code ratelimit.rejections} tagged by {@code endpoint} and the {@code limit} that refused
 * (with layered limits, the refusing one with the longest wait, as the 429 body names it),
 * and the requests the limiter failed to decide as {@code ratelimit.failures}.
 * <p>
 * The counters of an endpoint are registered on its first decision and kept, so a
 * decision costs one map lookup. Templates come from the application's handlers (plus
 * {@code UNKNOWN}) and limit names from the policy rows, so the tag values form a bounded
 * set.
 */
public class RateLimitDecisionMetrics implements RateLimitFilterListener {

	/** The name of the counter of decisions. */
	public static final String DECISIONS = "ratelimit.decisions";

	/** The name of the counter of rejections by the limit that refused. */
	public static final String REJECTIONS = "ratelimit.rejections";

	/** The name of the counter of requests the limiter failed to decide. */
	public static final String FAILURES = "ratelimit.failures";

	private static final Decision.Outcome[] OUTCOMES = Decision.Outcome.values();

	private final MeterRegistry registry;

	private final Counter failures;

	private final Map<EndpointTemplate, Counter[]> decisions = new ConcurrentHashMap<>();

	private final Map<EndpointTemplate, Map<String, Counter>> rejections = new ConcurrentHashMap<>();

	/**
	 * Creates the metrics and registers the failure counter.
	 * @param registry where the meters are registered
	 */
	public RateLimitDecisionMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.failures = Counter.builder(FAILURES)
			.description("Requests the rate limiter failed to decide, let through or answered 503 by failure mode")
			.register(registry);
	}

	@Override
	public void onDecision(HttpServletRequest request, Decision decision) {
		this.decisions.computeIfAbsent(decision.endpoint(), this::register)[decision.outcome().ordinal()].increment();
		if (decision.isRejected()) {
			rejection(decision.endpoint(), decision.limitName()).increment();
		}
	}

	private Counter rejection(EndpointTemplate endpoint, String limit) {
		// Plain reads first: a flood of refusals should not allocate a capturing lambda each.
		Map<String, Counter> byLimit = this.rejections.get(endpoint);
		Counter counter = (byLimit != null) ? byLimit.get(limit) : null;
		if (counter != null) {
			return counter;
		}
		byLimit = this.rejections.computeIfAbsent(endpoint, (key) -> new ConcurrentHashMap<>());
		return byLimit.computeIfAbsent(limit, (key) -> Counter.builder(REJECTIONS)
			.description("Rate limit rejections by endpoint template and the limit that refused")
			.tag("endpoint", endpoint.toString())
			.tag("limit", limit)
			.register(this.registry));
	}

	@Override
	public void onFailure(HttpServletRequest request, RuntimeException failure) {
		this.failures.increment();
	}

	private Counter[] register(EndpointTemplate endpoint) {
		Counter[] counters = new Counter[OUTCOMES.length];
		for (Decision.Outcome outcome : OUTCOMES) {
			counters[outcome.ordinal()] = Counter.builder(DECISIONS)
				.description("Rate limit decisions by endpoint template and outcome")
				.tag("endpoint", endpoint.toString())
				.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
				.register(this.registry);
		}
		return counters;
	}

}
