package io.ratelimit.core.policy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.ratelimit.core.endpoint.EndpointTemplate;

/**
 * Named groups of endpoints that a {@link LimitTarget#GROUP} limit counts together, such as
 * the endpoints that create content. An endpoint may belong to several groups. Groups are
 * configuration (the code decides what an endpoint does); limits on them are policy rows.
 */
public final class EndpointGroups {

	private static final EndpointGroups NONE = new EndpointGroups(Map.of());

	private final Map<String, Set<EndpointTemplate>> groups;

	private EndpointGroups(Map<String, Set<EndpointTemplate>> groups) {
		this.groups = groups;
	}

	/**
	 * Returns no groups at all.
	 * @return the empty set of groups
	 */
	public static EndpointGroups none() {
		return NONE;
	}

	/**
	 * Returns the given groups.
	 * @param groups the endpoints of each group, by group name
	 * @return the groups
	 * @throws IllegalArgumentException if a name is blank, a group is empty or names a
	 * reserved endpoint
	 */
	public static EndpointGroups of(Map<String, ? extends Set<EndpointTemplate>> groups) {
		Objects.requireNonNull(groups, "groups must not be null");
		Map<String, Set<EndpointTemplate>> copy = new LinkedHashMap<>();
		groups.forEach((name, endpoints) -> {
			if (name == null || name.isBlank()) {
				throw new IllegalArgumentException("A group of endpoints needs a name, but one was blank");
			}
			if (endpoints == null || endpoints.isEmpty()) {
				throw new IllegalArgumentException("The group '" + name + "' has no endpoints");
			}
			for (EndpointTemplate endpoint : endpoints) {
				if (endpoint.isReserved()) {
					throw new IllegalArgumentException(
							"The group '" + name + "' may hold real endpoints only, not '" + endpoint + "'");
				}
			}
			copy.put(name, Set.copyOf(endpoints));
		});
		return new EndpointGroups(Map.copyOf(copy));
	}

	/**
	 * Returns whether a group of this name exists.
	 * @param group the group name
	 * @return whether it is defined
	 */
	public boolean contains(String group) {
		return this.groups.containsKey(group);
	}

	/**
	 * Returns whether an endpoint belongs to a group.
	 * @param group the group name
	 * @param endpoint the endpoint
	 * @return whether the group holds the endpoint; {@code false} for an unknown group
	 */
	public boolean contains(String group, EndpointTemplate endpoint) {
		Set<EndpointTemplate> endpoints = this.groups.get(group);
		return endpoints != null && endpoints.contains(endpoint);
	}

	/**
	 * Returns the groups.
	 * @return the endpoints of each group, by name
	 */
	public Map<String, Set<EndpointTemplate>> asMap() {
		return this.groups;
	}

}
