package io.ratelimit.core.bucket;

import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;

/**
 * How many tokens a request to each endpoint costs: 1 unless configured. Expensive
 * endpoints (a report, an order) cost more of the same budget. Weights live in
 * configuration, next to the code whose cost they describe, not in the policy table.
 */
public final class EndpointWeights {

	/** The most tokens one request may cost. */
	public static final int MAXIMUM_WEIGHT = 1000;

	private static final EndpointWeights NONE = new EndpointWeights(Map.of());

	private final Map<EndpointTemplate, Integer> weights;

	private EndpointWeights(Map<EndpointTemplate, Integer> weights) {
		this.weights = weights;
	}

	/**
	 * Returns weights where every request costs one token.
	 * @return uniform weights
	 */
	public static EndpointWeights uniform() {
		return NONE;
	}

	/**
	 * Returns the given weights; endpoints not listed cost one token.
	 * @param weights tokens per request by endpoint, each 1 to {@value #MAXIMUM_WEIGHT}
	 * @return the weights
	 */
	public static EndpointWeights of(Map<EndpointTemplate, Integer> weights) {
		Objects.requireNonNull(weights, "weights must not be null");
		weights.forEach((endpoint, weight) -> {
			if (endpoint.isReserved()) {
				throw new IllegalArgumentException("Weights apply to real endpoints, not to '" + endpoint + "'");
			}
			if (weight == null || weight < 1 || weight > MAXIMUM_WEIGHT) {
				throw new IllegalArgumentException("The weight of '" + endpoint + "' must be between 1 and "
						+ MAXIMUM_WEIGHT + ", but was " + weight);
			}
		});
		return new EndpointWeights(Map.copyOf(weights));
	}

	/**
	 * Returns the cost of one request to an endpoint.
	 * @param endpoint the endpoint
	 * @return the weight, at least 1
	 */
	public int weightOf(EndpointTemplate endpoint) {
		return this.weights.getOrDefault(endpoint, 1);
	}

	/**
	 * Returns the heaviest weight configured.
	 * @return the largest weight, 1 if none is configured
	 */
	public int maximum() {
		return this.weights.values().stream().mapToInt(Integer::intValue).max().orElse(1);
	}

	/**
	 * Returns the configured weights.
	 * @return the weights by endpoint, without the endpoints that cost one token by default
	 */
	public Map<EndpointTemplate, Integer> asMap() {
		return this.weights;
	}

}
