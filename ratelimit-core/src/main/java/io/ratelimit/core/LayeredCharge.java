package io.ratelimit.core;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Charges a request to every bucket it needs, all or nothing: its endpoint's own, a login's
 * account bucket, and those of its layered limits. Each bucket is tried in turn (every one,
 * so that each refusing bucket's wait is known for {@code Retry-After}), and when any
 * refuses, what the others took is given back.
 * <p>
 * Under concurrency this never admits more than any one bucket allows: tokens are taken
 * before the request is admitted. The price is on the other side: between taking and giving
 * back, a request that is then refused holds its cost in each bucket it was charged to, so
 * a concurrent request may be refused by a bucket that would have had room a moment later.
 * The bound: a bucket is short by at most the cost of the requests being refused at that
 * moment, each for the time of one decision.
 * <p>
 * A limit in shadow mode is charged like the others but only watches: when shadow limits
 * alone refuse, the request passes ({@link Decision.Outcome#SHADOW_REJECTED}) and is charged
 * to the enforced limits alone, all or nothing again. Only enforced limits appear in the
 * response fields.
 * <p>
 * What does not depend on the client (limits, stores, shapes, costs, field items) comes
 * from a {@link ChargeLayout}; a decision brings only the client's bucket keys.
 * <p>
 * Limits of requests in flight come first: their permits are taken before any bucket is
 * charged, so a request they refuse spends no token. A request the buckets then refuse gives
 * its permits back at once, so it holds none; so does one whose charge fails (a store
 * outage), before the failure reaches the failure mode. An admitted request keeps its
 * permits on the decision ({@link Decision#permits()}) until its response completes.
 */
final class LayeredCharge {

	private LayeredCharge() {
	}

	/**
	 * Charges every bucket of a layout, all or nothing.
	 * @param layout the buckets to charge
	 * @param keys the client's key of each bucket of the layout, in its order
	 * @param endpoint the endpoint charged
	 * @param legacyNowMillis the wall-clock time for the legacy fields, negative for none
	 * @param attempt the login attempt the request is, kept only if it is admitted
	 * @return the decision
	 */
	static Decision decide(ChargeLayout layout, BucketKey[] keys, EndpointTemplate endpoint, long legacyNowMillis,
			@Nullable LoginAttempt attempt) {
		if (layout.inFlightCount() == 0) {
			return charge(layout, keys, endpoint, legacyNowMillis, attempt, null);
		}
		HeldPermits permits = HeldPermits.acquire(layout, keys, layout.size());
		if (permits.refused()) {
			String refusedBy = layout.inFlightPolicy(permits.refusedBy()).name();
			return Decision.layered(Decision.Outcome.REJECTED, endpoint, layout.own(),
					new ChargedQuotas(layout, null, permits), legacyNowMillis, null, refusedBy);
		}
		Decision decision;
		try {
			decision = charge(layout, keys, endpoint, legacyNowMillis, attempt, permits);
		}
		catch (RuntimeException ex) {
			permits.release();
			throw ex;
		}
		if (decision.isRejected()) {
			permits.release();
		}
		return decision;
	}

	private static Decision charge(ChargeLayout layout, BucketKey[] keys, EndpointTemplate endpoint,
			long legacyNowMillis, @Nullable LoginAttempt attempt, @Nullable HeldPermits permits) {
		Consumption[] results = new Consumption[layout.size()];
		boolean refusedEnforced = false;
		boolean refusedShadow = false;
		Reading reading = new Reading();
		for (int i = 0; i < results.length; i++) {
			results[i] = reading.tryConsume(layout, keys, i);
			if (!results[i].consumed()) {
				refusedEnforced |= layout.enforced(i);
				refusedShadow |= !layout.enforced(i);
			}
		}
		if (refusedEnforced || refusedShadow) {
			giveBackAll(layout, keys, results, false);
		}
		if (!refusedEnforced && refusedShadow) {
			refusedEnforced = chargeEnforcedAgain(layout, keys, results);
		}
		// An in-flight limit in shadow mode without a permit for the request only watches too.
		refusedShadow |= (permits != null && permits.refusedShadow());
		ChargedQuotas quotas = new ChargedQuotas(layout, results, permits);
		Decision.Outcome outcome = refusedEnforced ? Decision.Outcome.REJECTED
				: refusedShadow ? Decision.Outcome.SHADOW_REJECTED : Decision.Outcome.ALLOWED;
		// Only an enforced refusal leaves a shown quota refused: an admitted request has no
		// limit to name but the endpoint's own.
		String refusedBy = refusedEnforced ? longestRefusal(layout, quotas) : layout.own().name();
		return Decision.layered(outcome, endpoint, layout.own(), quotas, legacyNowMillis,
				(outcome == Decision.Outcome.ALLOWED) ? attempt : null, refusedBy);
	}


	/**
	 * The name of the limit that refused with the longest wait, the first of them if several
	 * wait as long.
	 */
	private static String longestRefusal(ChargeLayout layout, ChargedQuotas quotas) {
		String refusedBy = layout.own().name();
		long longestWait = 0;
		for (int i = 0; i < layout.shownCount(); i++) {
			Quota quota = quotas.get(i);
			if (quota.refused() && quota.resetSeconds() > longestWait) {
				longestWait = quota.resetSeconds();
				refusedBy = layout.policy(layout.shown(i)).name();
			}
		}
		return refusedBy;
	}

	/**
	 * Charges the enforced buckets once more, after shadow limits alone refused.
	 * @return whether an enforced bucket refused this time (a concurrent request took its
	 * last tokens meanwhile)
	 */
	private static boolean chargeEnforcedAgain(ChargeLayout layout, BucketKey[] keys, Consumption[] results) {
		boolean refused = false;
		Reading reading = new Reading();
		for (int i = 0; i < results.length; i++) {
			if (layout.enforced(i)) {
				results[i] = reading.tryConsume(layout, keys, i);
				refused |= !results[i].consumed();
			}
		}
		if (refused) {
			giveBackAll(layout, keys, results, true);
		}
		return refused;
	}

	private static void giveBackAll(ChargeLayout layout, BucketKey[] keys, Consumption[] results, boolean enforcedOnly) {
		for (int i = 0; i < results.length; i++) {
			if (results[i].consumed() && (!enforcedOnly || layout.enforced(i))) {
				BucketLimits limits = layout.limits(i);
				long tokens = layout.tokens(i);
				layout.store(i).refund(keys[i], limits, tokens);
				long units = Math.min(limits.capacityUnits(),
						results[i].remainingUnits() + tokens * BucketLimits.UNITS_PER_TOKEN);
				results[i] = new Consumption(true, units, 0);
			}
		}
	}

	/**
	 * Charges the buckets of one pass over a layout, local buckets that follow one another on
	 * one reading of their store's clock: a clock reading costs about as much as the rest of
	 * a local bucket's update. A charge to another store (a round trip to Redis) ends the
	 * reading, so that the local buckets after it read the clock again.
	 */
	private static final class Reading {

		private @Nullable LocalBucketStore store;

		private long nanos;

		Consumption tryConsume(ChargeLayout layout, BucketKey[] keys, int charge) {
			LocalBucketStore local = layout.localStore(charge);
			if (local == null) {
				this.store = null;
				return layout.store(charge).tryConsume(keys[charge], layout.limits(charge), layout.tokens(charge));
			}
			if (local != this.store) {
				this.nanos = local.nanoTime();
				this.store = local;
			}
			return local.tryConsume(keys[charge], layout.limits(charge), layout.tokens(charge), this.nanos);
		}

	}

}
