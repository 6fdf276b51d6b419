package io.ratelimit.core;

import java.util.AbstractList;
import java.util.RandomAccess;

import io.ratelimit.core.bucket.Consumption;

/**
 * The quotas of a request charged to layered limits, one per enforced limit in the order of
 * the fields, read from the layout and what each bucket said. A {@link Quota} is made when one
 * is asked for, and the {@code RateLimit-Policy} field comes whole from the layout: an
 * admitted request whose fields are never read builds none of them.
 */
final class ChargedQuotas extends AbstractList<Quota> implements RandomAccess {

	private final ChargeLayout layout;

	private final Consumption[] results;

	/**
	 * @param layout the buckets charged
	 * @param results what each bucket of the layout said, final
	 */
	ChargedQuotas(ChargeLayout layout, Consumption[] results) {
		this.layout = layout;
		this.results = results;
	}

	@Override
	public Quota get(int index) {
		int charge = this.layout.shown(index);
		return Quota.of(this.layout.name(charge), this.layout.limits(charge), this.results[charge]);
	}

	@Override
	public int size() {
		return this.layout.shownCount();
	}

	/**
	 * Returns the {@code RateLimit-Policy} field value.
	 * @return an item per quota, e.g. {@code "own";q=20;w=1, "hourly";q=5000;w=3600}
	 */
	String policyField() {
		return this.layout.policyField();
	}

	/**
	 * Returns the {@code RateLimit} field value.
	 * @return an item per quota, e.g. {@code "own";r=19;t=1, "hourly";r=4999;t=1}
	 */
	String rateLimitField() {
		StringBuilder field = new StringBuilder(32 * size());
		for (int i = 0; i < size(); i++) {
			get(i).appendRateLimitItem(field.append((i > 0) ? ", " : ""), this.layout.quotedName(this.layout.shown(i)));
		}
		return field.toString();
	}

}
