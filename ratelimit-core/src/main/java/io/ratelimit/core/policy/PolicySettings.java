package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.function.Predicate;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * The configuration policies are validated and completed with: the built-in limits that
 * apply when the table has no row, the burst factor, and the endpoints the application has.
 *
 * @param defaultRps the rate of the built-in {@code default} policy
 * @param unknownRps the rate of the built-in {@code UNKNOWN} policy
 * @param burstFactor {@code beta}: buckets hold {@code beta * rps} tokens, at least 1
 * @param knownEndpoints the endpoints of the application; rows for other templates are
 * rejected
 * @param groups the named groups of endpoints that group limits count together; rows for
 * other groups are rejected
 */
public record PolicySettings(BigDecimal defaultRps, BigDecimal unknownRps, BigDecimal burstFactor,
		Predicate<EndpointTemplate> knownEndpoints, EndpointGroups groups) {

	/** The smallest rate a policy may have: about one request every twelve days. */
	public static final BigDecimal MINIMUM_RPS = new BigDecimal("0.000001");

	/** The largest rate a policy may have. Anything above is surely a typo. */
	public static final BigDecimal MAXIMUM_RPS = new BigDecimal("1000000");

	/** The largest burst factor. */
	public static final BigDecimal MAXIMUM_BURST_FACTOR = new BigDecimal("1000");

	public PolicySettings {
		requireRate(defaultRps, "built-in default rate");
		requireRate(unknownRps, "built-in UNKNOWN rate");
		Objects.requireNonNull(burstFactor, "burstFactor must not be null");
		if (burstFactor.compareTo(BigDecimal.ONE) < 0 || burstFactor.compareTo(MAXIMUM_BURST_FACTOR) > 0) {
			throw new IllegalArgumentException(
					"The burst factor must be between 1 and " + MAXIMUM_BURST_FACTOR + ", but was " + burstFactor);
		}
		Objects.requireNonNull(knownEndpoints, "knownEndpoints must not be null");
		Objects.requireNonNull(groups, "groups must not be null");
	}

	/**
	 * Creates settings without groups of endpoints.
	 * @param defaultRps the rate of the built-in {@code default} policy
	 * @param unknownRps the rate of the built-in {@code UNKNOWN} policy
	 * @param burstFactor the burst factor
	 * @param knownEndpoints the endpoints of the application
	 */
	public PolicySettings(BigDecimal defaultRps, BigDecimal unknownRps, BigDecimal burstFactor,
			Predicate<EndpointTemplate> knownEndpoints) {
		this(defaultRps, unknownRps, burstFactor, knownEndpoints, EndpointGroups.none());
	}

	/**
	 * Returns settings that accept a policy for any template.
	 * @param defaultRps the rate of the built-in {@code default} policy
	 * @param unknownRps the rate of the built-in {@code UNKNOWN} policy
	 * @param burstFactor the burst factor
	 * @return the settings
	 */
	public static PolicySettings of(BigDecimal defaultRps, BigDecimal unknownRps, BigDecimal burstFactor) {
		return new PolicySettings(defaultRps, unknownRps, burstFactor, (endpoint) -> true);
	}

	/**
	 * Returns these settings with a different set of known endpoints.
	 * @param knownEndpoints the endpoints of the application
	 * @return new settings
	 */
	public PolicySettings withKnownEndpoints(Predicate<EndpointTemplate> knownEndpoints) {
		return new PolicySettings(this.defaultRps, this.unknownRps, this.burstFactor, knownEndpoints, this.groups);
	}

	/**
	 * Returns these settings with different groups of endpoints.
	 * @param groups the groups that group limits count together
	 * @return new settings
	 */
	public PolicySettings withGroups(EndpointGroups groups) {
		return new PolicySettings(this.defaultRps, this.unknownRps, this.burstFactor, this.knownEndpoints, groups);
	}

	/**
	 * Returns why a rate is not acceptable.
	 * @param rps the rate
	 * @return the problem, or {@code null} if the rate is acceptable
	 */
	static @Nullable String rateProblem(BigDecimal rps) {
		// Columns carry a fixed scale; -1.000000 reads better as -1.
		String shown = rps.stripTrailingZeros().toPlainString();
		if (rps.signum() <= 0) {
			return "rps_limit must be positive, but was " + shown + " (use mode OFF for no limit)";
		}
		if (rps.compareTo(MINIMUM_RPS) < 0) {
			return "rps_limit " + shown + " is below the minimum of " + MINIMUM_RPS.toPlainString();
		}
		if (rps.compareTo(MAXIMUM_RPS) > 0) {
			return "rps_limit " + shown + " is above the maximum of " + MAXIMUM_RPS.toPlainString();
		}
		return null;
	}

	private static void requireRate(BigDecimal rps, String name) {
		Objects.requireNonNull(rps, name + " must not be null");
		String problem = rateProblem(rps);
		if (problem != null) {
			throw new IllegalArgumentException("Invalid " + name + ": " + problem.replace("rps_limit", "rate"));
		}
	}

}
