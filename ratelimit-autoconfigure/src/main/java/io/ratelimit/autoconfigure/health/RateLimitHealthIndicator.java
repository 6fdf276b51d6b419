package io.ratelimit.autoconfigure.health;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.TimeSource;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.identity.ReloadableApiKeys;
import io.ratelimit.core.policy.PolicySnapshot;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Reports the state of the rate limit policies. The limiter never stops an application
 * from serving (without a policy table it enforces the built-in limits), so this
 * indicator is never {@code DOWN}: taking an instance out of a load balancer because its
 * policy database is unreachable would turn a degraded limiter into an outage.
 * <ul>
 * <li>{@code UP} once a snapshot has been loaded from the policy source (version 1 or
 * later), with the details {@code version}, {@code loadedAt}, {@code age} (seconds since
 * the rows were read), {@code policies} and {@code rejectedRows} (counts).</li>
 * <li>Still {@code UP} when the most recent reload failed, with the last good snapshot's
 * details plus {@code degraded: true}, {@code lastReloadFailure} and
 * {@code failedReloads}. The last good policies are still enforced, so the instance
 * serves correctly; a custom {@code DEGRADED} status would rank above {@code UP} in
 * Boot's default status order (statuses it does not know come first), turning the
 * application's overall status {@code DEGRADED} until every user added it to
 * {@code management.endpoint.health.status.order} and its HTTP mapping. Alert on the
 * {@code degraded} detail or on the {@code ratelimit.policy.snapshot.age} metric
 * instead. When the policy table holds more rows than
 * {@code ratelimit.policy.maximum-policies}, also {@code policiesFrozen: true} and
 * {@code maximumPolicies}: unlike an outage of the table this does not pass by itself, and
 * no change to any row takes effect until an operator acts.</li>
 * <li>{@code UNKNOWN} before any load succeeded (say the database was down at startup):
 * which limits the table holds is indeed unknown, and the built-in ones apply. Boot
 * ranks {@code UNKNOWN} below {@code UP} and answers it with HTTP 200, so it does not
 * change the overall status of an otherwise healthy application.</li>
 * </ul>
 * With the API-key tier on, the detail {@code apiKeys} holds {@code active} (keys in
 * memory), {@code loadedAt} (absent before the first load) and, while key reloads fail,
 * {@code lastReloadFailure} and {@code failedReloads}; a failing key reload also sets
 * {@code degraded: true}. When the key table holds more active keys than
 * {@code ratelimit.api-key.maximum-keys}, {@code apiKeys} also holds {@code overLimit: true}
 * and {@code maximumKeys}, and the top level {@code apiKeysFrozen: true}: unlike an outage
 * of the table this does not pass by itself, and keys revoked since the last good load stay
 * valid until an operator acts. With a permit store given, the detail {@code inFlight} holds
 * the permits held by requests in progress ({@code permits}), the callers holding them
 * ({@code keys}) and the requests refused because the store was full of callers
 * ({@code refusedForRoom}). No detail carries anything about clients or about any key
 * itself, only counts and times.
 */
public class RateLimitHealthIndicator implements HealthIndicator {

	private final ReloadablePolicies policies;

	private final @Nullable ReloadableApiKeys apiKeys;

	private final TimeSource time;

	private final @Nullable PermitStore permits;

	/**
	 * Creates an indicator.
	 * @param policies the policies the limiter uses
	 * @param apiKeys the API keys the limiter uses, {@code null} when the key tier is off
	 * @param time the clock the snapshot age is measured with
	 */
	public RateLimitHealthIndicator(ReloadablePolicies policies, @Nullable ReloadableApiKeys apiKeys,
			TimeSource time) {
		this(policies, apiKeys, time, null);
	}

	/**
	 * Creates an indicator that also shows the permits of in-flight limits.
	 * @param policies the policies the limiter uses
	 * @param apiKeys the API keys the limiter uses, {@code null} when the key tier is off
	 * @param time the clock the snapshot age is measured with
	 * @param permits the store of the permits of local in-flight limits, {@code null} for none
	 */
	public RateLimitHealthIndicator(ReloadablePolicies policies, @Nullable ReloadableApiKeys apiKeys,
			TimeSource time, @Nullable PermitStore permits) {
		this.policies = Objects.requireNonNull(policies, "policies must not be null");
		this.apiKeys = apiKeys;
		this.time = Objects.requireNonNull(time, "time must not be null");
		this.permits = permits;
	}

	@Override
	public Health health() {
		PolicySnapshot snapshot = this.policies.current();
		String failure = this.policies.lastFailure();
		Health.Builder health = new Health.Builder((snapshot.version() > 0) ? Status.UP : Status.UNKNOWN);
		health.withDetail("version", snapshot.version());
		if (snapshot.version() > 0) {
			long ageMillis = Math.max(0, this.time.currentTimeMillis() - snapshot.loadedAt().toEpochMilli());
			health.withDetail("loadedAt", snapshot.loadedAt().toString())
				.withDetail("age", ageMillis / 1000)
				.withDetail("policies", snapshot.policies().size())
				.withDetail("rejectedRows", snapshot.rejected().size());
		}
		else {
			health.withDetail("reason", "no policies loaded from the policy table yet; the built-in limits "
					+ "(ratelimit.policy.default-rps, ratelimit.policy.unknown-rps) apply");
		}
		if (failure != null) {
			health.withDetail("degraded", true)
				.withDetail("lastReloadFailure", failure)
				.withDetail("failedReloads", this.policies.failedReloads());
		}
		if (this.policies.overLimit()) {
			health.withDetail("policiesFrozen", true).withDetail("maximumPolicies", this.policies.maximumPolicies());
		}
		if (this.apiKeys != null) {
			health.withDetail("apiKeys", apiKeyDetails(this.apiKeys));
			if (this.apiKeys.lastFailure() != null) {
				health.withDetail("degraded", true);
			}
			if (this.apiKeys.overLimit()) {
				health.withDetail("apiKeysFrozen", true);
			}
		}
		if (this.permits != null) {
			Map<String, Object> inFlight = new LinkedHashMap<>();
			inFlight.put("permits", this.permits.permitsHeld());
			inFlight.put("keys", this.permits.keys());
			inFlight.put("refusedForRoom", this.permits.refusedForRoom());
			health.withDetail("inFlight", inFlight);
		}
		return health.build();
	}

	private static Map<String, Object> apiKeyDetails(ReloadableApiKeys apiKeys) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("active", apiKeys.size());
		Instant loadedAt = apiKeys.loadedAt();
		if (loadedAt != null) {
			details.put("loadedAt", loadedAt.toString());
		}
		String failure = apiKeys.lastFailure();
		if (failure != null) {
			details.put("lastReloadFailure", failure);
			details.put("failedReloads", apiKeys.failedReloads());
		}
		if (apiKeys.overLimit()) {
			details.put("overLimit", true);
			details.put("maximumKeys", apiKeys.maximumKeys());
		}
		return details;
	}

}
