package io.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyMode;
import org.jspecify.annotations.Nullable;

/**
 * The buckets a request is charged to under layered limits, with all that does not depend
 * on who sends it: in order, the endpoint's own bucket (unless its policy is off), a login's
 * account bucket, and one bucket per layered limit, each with its limit, store, shape and
 * cost, and the {@code RateLimit-Policy} field of the enforced ones; then the limits of
 * requests in flight, each with its permit store and count, whose permits are taken before
 * the buckets are charged (and whose items end the field). It depends only on the
 * policy snapshot, the endpoint, the tenant and its plan, so {@link ChargeLayouts} builds it once for
 * them and a decision only keys and charges the buckets.
 */
final class ChargeLayout {

	private final Policy own;

	private final List<Policy> layers;

	private final boolean chargesOwn;

	private final String[] names;

	private final String[] quotedNames;

	private final Policy[] policies;

	private final BucketStore[] stores;

	/* The store of each charge if it is local, for a clock reading shared among them. */
	private final @Nullable LocalBucketStore[] localStores;

	private final BucketLimits[] limits;

	private final long[] tokens;

	/* The charges shown in the fields (the enforced ones), in the order of the fields. */
	private final int[] shown;

	private final String policyField;

	private final InFlight[] inFlight;

	/* The in-flight limits shown in the fields (the enforced ones). */
	private final int[] inFlightShown;

	private ChargeLayout(Policy own, List<Policy> layers, List<Charge> charges, List<InFlight> inFlight) {
		this.own = own;
		this.layers = layers;
		this.chargesOwn = own.mode() != PolicyMode.OFF;
		int n = charges.size();
		this.names = new String[n];
		this.quotedNames = new String[n];
		this.policies = new Policy[n];
		this.stores = new BucketStore[n];
		this.localStores = new LocalBucketStore[n];
		this.limits = new BucketLimits[n];
		this.tokens = new long[n];
		int enforced = 0;
		for (int i = 0; i < n; i++) {
			Charge charge = charges.get(i);
			this.names[i] = charge.name;
			this.quotedNames[i] = Quota.quoted(charge.name);
			this.policies[i] = charge.policy;
			this.stores[i] = charge.store;
			this.localStores[i] = (charge.store instanceof LocalBucketStore local) ? local : null;
			this.limits[i] = charge.limits;
			this.tokens[i] = charge.tokens;
			enforced += isEnforced(charge.policy) ? 1 : 0;
		}
		this.shown = new int[enforced];
		StringBuilder field = new StringBuilder();
		for (int i = 0, j = 0; i < n; i++) {
			if (isEnforced(this.policies[i])) {
				this.shown[j++] = i;
				field.append((field.length() > 0) ? ", " : "")
					.append(Quota.policyItem(this.quotedNames[i], this.limits[i]));
			}
		}
		this.inFlight = inFlight.toArray(new InFlight[0]);
		int enforcedInFlight = 0;
		for (InFlight limit : this.inFlight) {
			enforcedInFlight += isEnforced(limit.policy) ? 1 : 0;
		}
		this.inFlightShown = new int[enforcedInFlight];
		for (int i = 0, j = 0; i < this.inFlight.length; i++) {
			if (isEnforced(this.inFlight[i].policy)) {
				this.inFlightShown[j++] = i;
				field.append((field.length() > 0) ? ", " : "").append(this.inFlight[i].policy.policyItem());
			}
		}
		this.policyField = field.toString();
	}

	/**
	 * Starts a layout.
	 * @param own the endpoint's own policy, charged unless it is off
	 * @param layers the layered limits that apply, in the order they are charged
	 * @return a builder taking the charges in order
	 */
	static Builder builder(Policy own, List<Policy> layers) {
		return new Builder(own, layers);
	}

	private static boolean isEnforced(Policy policy) {
		return policy.mode() == PolicyMode.ENFORCE;
	}

	Policy own() {
		return this.own;
	}

	/** Whether the endpoint's own bucket is the first charge. */
	boolean chargesOwn() {
		return this.chargesOwn;
	}

	/**
	 * The layered limits, charged after the own and the account's buckets; the in-flight
	 * ones among them take permits instead, before any bucket is charged.
	 */
	List<Policy> layers() {
		return this.layers;
	}

	/** How many limits of requests in flight apply. */
	int inFlightCount() {
		return this.inFlight.length;
	}

	Policy inFlightPolicy(int limit) {
		return this.inFlight[limit].policy;
	}

	String inFlightName(int limit) {
		return this.inFlight[limit].name;
	}

	PermitStore inFlightStore(int limit) {
		return this.inFlight[limit].store;
	}

	int inFlightLimit(int limit) {
		return this.inFlight[limit].limit;
	}

	boolean inFlightEnforced(int limit) {
		return isEnforced(this.inFlight[limit].policy);
	}

	/** How many in-flight limits the fields show. */
	int inFlightShownCount() {
		return this.inFlightShown.length;
	}

	/** The in-flight limit the fields show in the given place, after the buckets. */
	int inFlightShown(int place) {
		return this.inFlightShown[place];
	}

	/** Whether a layered limit applies, besides the endpoint's own. */
	boolean hasLayers() {
		return !this.layers.isEmpty();
	}

	int size() {
		return this.policies.length;
	}

	String name(int charge) {
		return this.names[charge];
	}

	String quotedName(int charge) {
		return this.quotedNames[charge];
	}

	Policy policy(int charge) {
		return this.policies[charge];
	}

	boolean enforced(int charge) {
		return isEnforced(this.policies[charge]);
	}

	BucketStore store(int charge) {
		return this.stores[charge];
	}

	/** The store of a charge if it is a {@link LocalBucketStore}, else {@code null}. */
	@Nullable LocalBucketStore localStore(int charge) {
		return this.localStores[charge];
	}

	BucketLimits limits(int charge) {
		return this.limits[charge];
	}

	long tokens(int charge) {
		return this.tokens[charge];
	}

	/** How many charges the fields show. */
	int shownCount() {
		return this.shown.length;
	}

	/** The charge the fields show in the given place. */
	int shown(int place) {
		return this.shown[place];
	}

	/** The {@code RateLimit-Policy} field: an item per enforced charge, empty if none. */
	String policyField() {
		return this.policyField;
	}

	/**
	 * Takes the charges of a layout in the order they are made.
	 */
	static final class Builder {

		private final Policy own;

		private final List<Policy> layers;

		private final List<Charge> charges = new ArrayList<>(4);

		private final List<InFlight> inFlight = new ArrayList<>(1);

		private Builder(Policy own, List<Policy> layers) {
			this.own = own;
			this.layers = layers;
		}

		/**
		 * Adds a bucket to charge.
		 * @param name the bucket's name in the fields
		 * @param policy the limit
		 * @param store where its bucket lives
		 * @param limits the bucket shape, large enough for the tokens
		 * @param tokens what a request costs this limit
		 * @return this builder
		 */
		Builder charge(String name, Policy policy, BucketStore store, BucketLimits limits, long tokens) {
			this.charges.add(new Charge(name, policy, store, limits, tokens));
			return this;
		}

		/**
		 * Adds a limit of requests in flight.
		 * @param policy the limit, of unit {@code IN_FLIGHT}
		 * @param store where its permits are held
		 * @param limit the most requests in progress at once
		 * @return this builder
		 */
		Builder inFlight(Policy policy, PermitStore store, int limit) {
			this.inFlight.add(new InFlight(policy.name(), policy, store, limit));
			return this;
		}

		ChargeLayout build() {
			return new ChargeLayout(this.own, this.layers, this.charges, this.inFlight);
		}

	}

	private record Charge(String name, Policy policy, BucketStore store, BucketLimits limits, long tokens) {
	}

	private record InFlight(String name, Policy policy, PermitStore store, int limit) {
	}

}
