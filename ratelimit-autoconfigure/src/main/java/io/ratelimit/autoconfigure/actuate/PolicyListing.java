package io.ratelimit.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.ratelimit.autoconfigure.actuate.RateLimitEndpoint.PageDescriptor;
import io.ratelimit.autoconfigure.actuate.RateLimitEndpoint.PolicyDescriptor;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicySnapshot;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * One page of a snapshot's policies, of those that pass every filter given. A table may
 * hold a million tenants' rows, far too many for one answer, so the admin endpoint lists
 * them a page at a time, in the order of the table, and filtered by what an operator looks
 * for. Each filter is a parameter that matches everything when absent, so that a filter
 * added later leaves the answers to existing requests as they were.
 *
 * @param tenant only the policies of this tenant ({@code project_id}), or {@code null}
 * @param plan only the policies of this plan, or {@code null}
 * @param endpoint only the policies written for this endpoint, or {@code null}
 * @param number the page, from 0
 * @param size the policies per page
 */
record PolicyListing(@Nullable String tenant, @Nullable String plan, @Nullable EndpointTemplate endpoint, int number,
		int size) {

	/** The page size when none is asked for: what an operator reads on one screen or two. */
	static final int DEFAULT_SIZE = 100;

	/** The largest page: about 300 KB of JSON. */
	static final int MAXIMUM_SIZE = 1000;

	/** Rejected rows listed at most; the rest are counted. */
	static final int MAXIMUM_REJECTED = 100;

	/**
	 * Reads the listing's parameters as the endpoint received them.
	 * @throws InvalidEndpointRequestException (400) naming the parameter and the bad value
	 */
	static PolicyListing of(@Nullable Integer page, @Nullable Integer size, @Nullable String tenant,
			@Nullable String plan, @Nullable String endpoint) {
		int number = Objects.requireNonNullElse(page, 0);
		int perPage = Objects.requireNonNullElse(size, DEFAULT_SIZE);
		if (number < 0) {
			throw invalid("Invalid page " + number + ": pages are numbered from 0");
		}
		if (perPage < 1 || perPage > MAXIMUM_SIZE) {
			throw invalid("Invalid size " + perPage + ": a page holds from 1 to " + MAXIMUM_SIZE + " policies");
		}
		return new PolicyListing(tenant, plan, (endpoint != null) ? RateLimitEndpoint.parse(endpoint) : null,
				number, perPage);
	}

	private static InvalidEndpointRequestException invalid(String message) {
		// The reason is what the answer shows, where the application includes messages in errors.
		return new InvalidEndpointRequestException(message, message);
	}

	boolean matches(Policy policy) {
		return (this.tenant == null || this.tenant.equals(policy.tenant()))
				&& (this.plan == null || this.plan.equals(policy.plan()))
				&& (this.endpoint == null || this.endpoint.equals(policy.endpoint()));
	}

	/**
	 * Returns this page of the snapshot's policies and the count of all that match.
	 */
	Page page(PolicySnapshot snapshot) {
		long first = (long) this.number * this.size;
		List<PolicyDescriptor> policies = new ArrayList<>(Math.min(this.size, snapshot.policies().size()));
		long matching = 0;
		for (Policy policy : snapshot.policies()) {
			if (matches(policy)) {
				if (matching >= first && policies.size() < this.size) {
					policies.add(PolicyDescriptor.of(policy));
				}
				matching++;
			}
		}
		long pages = (matching + this.size - 1) / this.size;
		return new Page(policies, new PageDescriptor(this.number, this.size, matching, pages));
	}

	record Page(List<PolicyDescriptor> policies, PageDescriptor page) {
	}

}
