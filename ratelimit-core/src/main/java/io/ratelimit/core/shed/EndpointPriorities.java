package io.ratelimit.core.shed;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.endpoint.EndpointTemplate;

/**
 * The priority class of every endpoint: the ones listed, {@link Priority#DEFAULT} for the
 * others, and {@link Priority#SHEDDABLE} for {@link EndpointTemplate#UNKNOWN}. A request is
 * classed by the template of the handler that serves it, so no path spelling, method
 * override header or random path can make it count as {@link Priority#CRITICAL}.
 */
public final class EndpointPriorities {

	private static final EndpointPriorities NONE = new EndpointPriorities(Map.of());

	private final Map<EndpointTemplate, Priority> priorities;

	private EndpointPriorities(Map<EndpointTemplate, Priority> priorities) {
		this.priorities = priorities;
	}

	/**
	 * Returns the classes of an application that lists none: every endpoint it serves is
	 * {@link Priority#DEFAULT}.
	 * @return the priorities
	 */
	public static EndpointPriorities none() {
		return NONE;
	}

	/**
	 * Returns the given classes.
	 * @param priorities the class of each listed endpoint
	 * @return the priorities
	 * @throws IllegalArgumentException if a reserved template ({@code UNKNOWN},
	 * {@code default}) is listed: requests no endpoint serves are always sheddable
	 */
	public static EndpointPriorities of(Map<EndpointTemplate, Priority> priorities) {
		Objects.requireNonNull(priorities, "priorities must not be null");
		Map<EndpointTemplate, Priority> copy = new HashMap<>();
		priorities.forEach((endpoint, priority) -> {
			Objects.requireNonNull(priority, "priority must not be null");
			if (endpoint.isReserved()) {
				throw new IllegalArgumentException("Only real endpoints have a priority class, not '" + endpoint
						+ "': requests no endpoint serves are always SHEDDABLE");
			}
			copy.put(endpoint, priority);
		});
		return new EndpointPriorities(Map.copyOf(copy));
	}

	/**
	 * Returns the class of an endpoint.
	 * @param endpoint the endpoint a request was resolved to
	 * @return its class: {@link Priority#SHEDDABLE} for {@code UNKNOWN},
	 * {@link Priority#DEFAULT} for an endpoint not listed
	 */
	public Priority of(EndpointTemplate endpoint) {
		if (endpoint.isUnknown()) {
			return Priority.SHEDDABLE;
		}
		return this.priorities.getOrDefault(endpoint, Priority.DEFAULT);
	}

	/**
	 * Returns the listed endpoints.
	 * @return the class of each listed endpoint
	 */
	public Map<EndpointTemplate, Priority> asMap() {
		return this.priorities;
	}

}
