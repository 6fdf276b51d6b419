package io.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyMode;
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
 */
final class LayeredCharge {

	private final List<Charge> charges = new ArrayList<>(4);

	/**
	 * Adds a bucket to charge.
	 * @param policy the limit
	 * @param store where its bucket lives
	 * @param key the bucket key
	 * @param limits the bucket shape, large enough for the tokens
	 * @param tokens what the request costs this limit
	 * @return this charge
	 */
	LayeredCharge add(Policy policy, BucketStore store, BucketKey key, BucketLimits limits, long tokens) {
		return add(policy.name(), policy, store, key, limits, tokens);
	}

	/**
	 * Adds a bucket to charge under a name of its own in the fields, such as the account's
	 * bucket of a login.
	 * @param name the bucket's name in the fields
	 * @param policy the limit
	 * @param store where its bucket lives
	 * @param key the bucket key
	 * @param limits the bucket shape, large enough for the tokens
	 * @param tokens what the request costs this limit
	 * @return this charge
	 */
	LayeredCharge add(String name, Policy policy, BucketStore store, BucketKey key, BucketLimits limits,
			long tokens) {
		this.charges.add(new Charge(name, policy, store, key, limits, tokens));
		return this;
	}

	/**
	 * Charges every bucket added, all or nothing.
	 * @param endpoint the endpoint charged
	 * @param own the endpoint's own policy, named by the decision
	 * @param legacyNowMillis the wall-clock time for the legacy fields, negative for none
	 * @param attempt the login attempt the request is, kept only if it is admitted
	 * @return the decision
	 */
	Decision decide(EndpointTemplate endpoint, Policy own, long legacyNowMillis, @Nullable LoginAttempt attempt) {
		int n = this.charges.size();
		Consumption[] results = new Consumption[n];
		boolean refusedEnforced = false;
		boolean refusedShadow = false;
		for (int i = 0; i < n; i++) {
			Charge charge = this.charges.get(i);
			results[i] = charge.store.tryConsume(charge.key, charge.limits, charge.tokens);
			if (!results[i].consumed()) {
				refusedEnforced |= charge.enforced();
				refusedShadow |= !charge.enforced();
			}
		}
		if (refusedEnforced || refusedShadow) {
			giveBackAll(results, false);
		}
		if (!refusedEnforced && refusedShadow) {
			refusedEnforced = chargeEnforcedAgain(results);
		}
		List<Quota> shown = new ArrayList<>(n);
		String refusedBy = own.name();
		long longestWait = 0;
		for (int i = 0; i < n; i++) {
			Charge charge = this.charges.get(i);
			if (charge.enforced()) {
				Quota quota = Quota.of(charge.name, charge.limits, results[i]);
				shown.add(quota);
				if (quota.refused() && quota.resetSeconds() > longestWait) {
					longestWait = quota.resetSeconds();
					refusedBy = charge.policy.name();
				}
			}
		}
		Decision.Outcome outcome = refusedEnforced ? Decision.Outcome.REJECTED
				: refusedShadow ? Decision.Outcome.SHADOW_REJECTED : Decision.Outcome.ALLOWED;
		return Decision.layered(outcome, endpoint, own, shown, legacyNowMillis,
				(outcome == Decision.Outcome.ALLOWED) ? attempt : null, refusedBy);
	}

	/**
	 * Charges the enforced buckets once more, after shadow limits alone refused.
	 * @return whether an enforced bucket refused this time (a concurrent request took its
	 * last tokens meanwhile)
	 */
	private boolean chargeEnforcedAgain(Consumption[] results) {
		boolean refused = false;
		for (int i = 0; i < results.length; i++) {
			Charge charge = this.charges.get(i);
			if (charge.enforced()) {
				results[i] = charge.store.tryConsume(charge.key, charge.limits, charge.tokens);
				refused |= !results[i].consumed();
			}
		}
		if (refused) {
			giveBackAll(results, true);
		}
		return refused;
	}

	private void giveBackAll(Consumption[] results, boolean enforcedOnly) {
		for (int i = 0; i < results.length; i++) {
			Charge charge = this.charges.get(i);
			if (results[i].consumed() && (!enforcedOnly || charge.enforced())) {
				charge.store.refund(charge.key, charge.limits, charge.tokens);
				long units = Math.min(charge.limits.capacityUnits(),
						results[i].remainingUnits() + charge.tokens * BucketLimits.UNITS_PER_TOKEN);
				results[i] = new Consumption(true, units, 0);
			}
		}
	}

	private record Charge(String name, Policy policy, BucketStore store, BucketKey key, BucketLimits limits,
			long tokens) {

		boolean enforced() {
			return this.policy.mode() == PolicyMode.ENFORCE;
		}

	}

}
