package io.ratelimit.core;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;

import io.ratelimit.core.bucket.Consumption;
import org.jspecify.annotations.Nullable;

/**
 * The quotas of a request charged to layered limits, one per enforced limit in the order of
 * the fields, read from the layout and what each bucket said. A {@link Quota} is made when one
 * is asked for, and the {@code RateLimit-Policy} field comes whole from the layout: an
 * admitted request whose fields are never read builds none of them.
 * <p>
 * The enforced in-flight limits come after the buckets, each with the permits it had left
 * ({@code r}; {@code t=0} while one is left, else 1, the short retry hint a refusal gives).
 * A request refused by an in-flight limit was charged to no bucket: its only quota is the
 * refusing limit's, {@code r=0;t=1}.
 */
final class ChargedQuotas extends AbstractList<Quota> implements RandomAccess {

	private final ChargeLayout layout;

	private final Consumption @Nullable [] results;

	private final @Nullable HeldPermits permits;

	/**
	 * @param layout the buckets charged
	 * @param results what each bucket of the layout said, final; {@code null} when an
	 * in-flight limit refused before any bucket was charged
	 * @param permits the permits of the layout's in-flight limits, {@code null} if it has
	 * none
	 */
	ChargedQuotas(ChargeLayout layout, Consumption @Nullable [] results, @Nullable HeldPermits permits) {
		this.layout = layout;
		this.results = results;
		this.permits = permits;
	}

	@Override
	public Quota get(int index) {
		if (this.results != null && index < this.layout.shownCount()) {
			int charge = this.layout.shown(index);
			return Quota.of(this.layout.name(charge), this.layout.limits(charge), this.results[charge]);
		}
		HeldPermits permits = Objects.requireNonNull(this.permits);
		if (this.results == null) {
			return Quota.inFlight(this.layout.inFlightPolicy(permits.refusedBy()), 0, true);
		}
		int limit = this.layout.inFlightShown(index - this.layout.shownCount());
		return Quota.inFlight(this.layout.inFlightPolicy(limit), permits.remaining(limit), false);
	}

	@Override
	public int size() {
		if (this.results == null) {
			return 1;
		}
		return this.layout.shownCount() + ((this.permits != null) ? this.layout.inFlightShownCount() : 0);
	}

	/**
	 * Returns the permits the request holds, {@code null} if no in-flight limit applies.
	 */
	@Nullable HeldPermits permits() {
		return this.permits;
	}

	/**
	 * Returns the {@code RateLimit-Policy} field value.
	 * @return an item per quota, e.g. {@code "own";q=20;w=1, "hourly";q=5000;w=3600}
	 */
	String policyField() {
		if (this.results == null) {
			return this.layout.inFlightPolicy(Objects.requireNonNull(this.permits).refusedBy()).policyItem();
		}
		return this.layout.policyField();
	}

	/**
	 * Returns the {@code RateLimit} field value.
	 * @return an item per quota, e.g. {@code "own";r=19;t=1, "hourly";r=4999;t=1}
	 */
	String rateLimitField() {
		StringBuilder field = new StringBuilder(32 * size());
		for (int i = 0; i < size(); i++) {
			Quota quota = get(i);
			String quotedName = (this.results != null && i < this.layout.shownCount())
					? this.layout.quotedName(this.layout.shown(i)) : Quota.quoted(quota.name());
			quota.appendRateLimitItem(field.append((i > 0) ? ", " : ""), quotedName);
		}
		return field.toString();
	}

}
