package io.ratelimit.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketKeys;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.Consumption;
import io.ratelimit.core.bucket.EndpointWeights;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.concurrency.LocalPermitStore;
import io.ratelimit.core.concurrency.PermitStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.identity.DeviceTokens;
import io.ratelimit.core.identity.IdentifierExtractor;
import io.ratelimit.core.identity.Identity;
import io.ratelimit.core.identity.IdentityResolver;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.SubmittedIdentifier;
import io.ratelimit.core.policy.LimitTarget;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyMode;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.PolicySnapshot;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.jspecify.annotations.Nullable;

/**
 * The rate limiter: the whole pipeline in {@link #evaluate}. Endpoint, then identity, then
 * policy, then bucket; the result is a {@link Decision}. A request is charged to its
 * endpoint's own limit and to every layered limit that applies to it (per endpoint, per
 * group of endpoints, across the API), all or nothing; a layered limit of requests in
 * flight takes a permit first, which the decision holds until the web integration releases
 * it ({@link Decision#permits()}). Thread-safe; built with
 * {@link #builder(EndpointResolver, ReloadablePolicies)}.
 */
public final class RateLimiter {

	/** The suffix naming the account's bucket of a login in the response fields. */
	static final String IDENTIFIER_SUFFIX = " identifier";

	private final EndpointResolver endpoints;

	private final IdentityResolver identities;

	private final ReloadablePolicies policies;

	private final EndpointWeights weights;

	private final int maximumWeight;

	private final BucketKeys keys;

	private final BucketStore buckets;

	private final BucketStore globalBuckets;

	private final BucketStore batchedGlobalBuckets;

	private final PermitStore permits;

	private final PermitStore globalPermits;

	private final TimeSource time;

	private final boolean legacyHeaders;

	private final boolean rejectUnknownEndpoints;

	private final Map<EndpointTemplate, IdentifierExtractor> sensitiveEndpoints;

	private final @Nullable TrustedDevices devices;

	private final ChargeLayouts layouts;

	private final ChargeKeys chargeKeys;

	private RateLimiter(Builder builder) {
		this.endpoints = builder.endpoints;
		this.identities = builder.identities;
		this.policies = builder.policies;
		this.weights = builder.weights;
		this.maximumWeight = builder.weights.maximum();
		this.keys = (builder.keys != null) ? builder.keys : new BucketKeys(KeyedHasher.withRandomSecret(), false);
		this.time = builder.time;
		this.buckets = (builder.buckets != null) ? builder.buckets : LocalBucketStore.create(100_000, builder.time);
		this.globalBuckets = (builder.globalBuckets != null) ? builder.globalBuckets : this.buckets;
		this.batchedGlobalBuckets = (builder.batchedGlobalBuckets != null) ? builder.batchedGlobalBuckets
				: this.globalBuckets;
		this.permits = (builder.permits != null) ? builder.permits : LocalPermitStore.create(100_000);
		this.globalPermits = (builder.globalPermits != null) ? builder.globalPermits : this.permits;
		this.legacyHeaders = builder.legacyHeaders;
		this.rejectUnknownEndpoints = builder.rejectUnknownEndpoints;
		this.sensitiveEndpoints = Map.copyOf(builder.sensitiveEndpoints);
		this.devices = builder.devices;
		this.layouts = new ChargeLayouts(this::layout);
		this.chargeKeys = new ChargeKeys((layout, endpoint, identity) -> keysFor(layout, endpoint, identity, null));
	}

	/**
	 * Returns a builder for a limiter over the given endpoints and policies.
	 * @param endpoints decides which endpoint a request is
	 * @param policies the policies in force
	 * @return a new builder
	 */
	public static Builder builder(EndpointResolver endpoints, ReloadablePolicies policies) {
		return new Builder(endpoints, policies);
	}

	/**
	 * Decides one request, consuming from its bucket when it is allowed.
	 * @param request the request
	 * @return the decision
	 */
	public Decision evaluate(RateLimitRequest request) {
		return evaluate(request, this.endpoints.resolve(request));
	}

	/**
	 * Decides one request whose endpoint a stage before the limiter resolved already, with
	 * this limiter's {@link #endpoints() resolver}.
	 * @param request the request
	 * @param endpoint the endpoint {@link #endpoints()} resolved the request to
	 * @return the decision
	 */
	public Decision evaluate(RateLimitRequest request, EndpointTemplate endpoint) {
		if (this.rejectUnknownEndpoints && endpoint.isServedByNothing()) {
			return Decision.unknownEndpoint(this.policies.current().unknownPolicy());
		}
		// Unknown endpoints are limited by network alone: no credential work for random paths.
		Identity identity = endpoint.isUnknown() ? this.identities.resolveAnonymous(request)
				: this.identities.resolve(request);
		PolicySnapshot snapshot = this.policies.current();
		String plan = snapshot.planOf(identity.tenant(), identity.plan());
		Policy policy = snapshot.resolve(endpoint, identity.tenant(), plan);
		IdentifierExtractor sensitive = (policy.mode() != PolicyMode.OFF) ? this.sensitiveEndpoints.get(endpoint)
				: null;
		ChargeLayout layout = (sensitive != null || (snapshot.hasLayeredLimits() && !endpoint.isUnknown()))
				? this.layouts.layoutFor(snapshot, endpoint, identity.tenant(), plan) : null;
		if (policy.mode() == PolicyMode.OFF && (layout == null || !layout.hasLayers())) {
			return Decision.unlimited(endpoint, policy);
		}
		long legacyNow = this.legacyHeaders ? this.time.currentTimeMillis() : -1;
		if (sensitive == null && (layout == null || !layout.hasLayers())) {
			int weight = this.weights.weightOf(endpoint);
			BucketLimits limits = policy.limits().withCapacityOfAtLeast(weight);
			BucketStore store = storeOf(policy);
			Consumption consumption = store.tryConsume(this.keys.keyFor(endpoint, identity), limits, weight);
			return Decision.of(endpoint, policy, List.of(Quota.of(policy.name(), limits, consumption)), legacyNow);
		}
		SubmittedIdentifier account = (sensitive != null) ? extract(sensitive, request) : SubmittedIdentifier.ABSENT;
		if (account.isAbsent()) {
			// Names no account, so logs nobody in: its client's bucket alone, and the layers.
			return LayeredCharge.decide(layout, this.chargeKeys.keysFor(layout, endpoint, identity), endpoint, legacyNow,
					null);
		}
		return chargeLogin(layout, account, request, endpoint, identity, legacyNow);
	}

	/**
	 * Charges a login to its client's bucket, its account's (or its trusted device's) and
	 * its layers, and keeps the attempt to settle once the application has answered.
	 */
	private Decision chargeLogin(ChargeLayout clientLayout, SubmittedIdentifier account, RateLimitRequest request,
			EndpointTemplate endpoint, Identity identity, long legacyNow) {
		Policy policy = clientLayout.own();
		String device = (this.devices != null && account.value() != null)
				? this.devices.tokens().verify(this.devices.read(request), account.value()) : null;
		BucketKey accountBucket = (device != null) ? this.keys.deviceKeyFor(endpoint, account, device)
				: this.keys.identifierKeyFor(endpoint, account);
		int weight = this.weights.weightOf(endpoint);
		ChargeLayout layout = layoutOf(policy, clientLayout.layers(), endpoint, true);
		LoginAttempt attempt = (account.value() != null) ? new LoginAttempt(storeOf(policy), accountBucket,
				policy.limits().withCapacityOfAtLeast(weight), weight, account.value(),
				(this.devices != null && device == null) ? this.devices.tokens() : null) : null;
		return LayeredCharge.decide(layout, keysFor(layout, endpoint, identity, accountBucket), endpoint, legacyNow,
				attempt);
	}

	/**
	 * Lays out the buckets of the requests to an endpoint by a tenant on a plan:
	 * {@link ChargeLayouts} asks once per snapshot, endpoint, tenant and plan.
	 */
	private ChargeLayout layout(PolicySnapshot snapshot, EndpointTemplate endpoint, @Nullable String tenant,
			@Nullable String plan) {
		return layoutOf(snapshot.resolve(endpoint, tenant, plan), snapshot.resolveLayered(endpoint, tenant, plan),
				endpoint, false);
	}

	/**
	 * Lays out the endpoint's own bucket, a login's account bucket if asked, and a bucket per
	 * layered limit, in that order.
	 */
	private ChargeLayout layoutOf(Policy own, List<Policy> layers, EndpointTemplate endpoint, boolean account) {
		int weight = this.weights.weightOf(endpoint);
		ChargeLayout.Builder layout = ChargeLayout.builder(own, layers);
		BucketLimits ownLimits = own.limits().withCapacityOfAtLeast(weight);
		if (own.mode() != PolicyMode.OFF) {
			layout.charge(own.name(), own, storeOf(own), ownLimits, weight);
		}
		if (account) {
			layout.charge(own.name() + IDENTIFIER_SUFFIX, own, storeOf(own), ownLimits, weight);
		}
		for (Policy layer : layers) {
			if (layer.isInFlight()) {
				layout.inFlight(layer, layer.isGlobal() ? this.globalPermits : this.permits,
						(int) layer.limits().quota());
				continue;
			}
			int cost = layer.unit().cost(weight);
			// A bucket that endpoints of different weights share keeps one shape: big enough
			// for the heaviest, or each endpoint would resize it for the next.
			long capacity = (layer.target() == LimitTarget.ENDPOINT) ? cost : layer.unit().cost(this.maximumWeight);
			layout.charge(layer.name(), layer, storeOf(layer), layer.limits().withCapacityOfAtLeast(capacity), cost);
		}
		return layout.build();
	}

	/**
	 * Returns the client's key of every bucket of a layout, each keyed by what shares it: the
	 * endpoint, the account, the group or the API; then its key under each in-flight limit,
	 * keyed alike.
	 */
	private BucketKey[] keysFor(ChargeLayout layout, EndpointTemplate endpoint, Identity identity,
			@Nullable BucketKey account) {
		BucketKey[] keys = new BucketKey[layout.size() + layout.inFlightCount()];
		int next = 0;
		if (layout.chargesOwn()) {
			keys[next++] = this.keys.keyFor(endpoint, identity);
		}
		if (account != null) {
			keys[next++] = account;
		}
		List<Policy> layers = layout.layers();
		for (int i = 0; i < layers.size(); i++) {
			if (!layers.get(i).isInFlight()) {
				keys[next++] = layerKey(layers.get(i), endpoint, identity);
			}
		}
		for (int i = 0; i < layers.size() && layout.inFlightCount() > 0; i++) {
			if (layers.get(i).isInFlight()) {
				keys[next++] = layerKey(layers.get(i), endpoint, identity);
			}
		}
		return keys;
	}

	private BucketKey layerKey(Policy layer, EndpointTemplate endpoint, Identity identity) {
		String name = Objects.requireNonNull(layer.limitName());
		return switch (layer.target()) {
			case API -> this.keys.apiKeyFor(name, identity);
			case GROUP -> this.keys.groupKeyFor(name, Objects.requireNonNull(layer.group()), identity);
			case ENDPOINT -> this.keys.endpointLimitKeyFor(name, endpoint, identity);
		};
	}

	private BucketStore storeOf(Policy policy) {
		return policy.isBatched() ? this.batchedGlobalBuckets : policy.isGlobal() ? this.globalBuckets : this.buckets;
	}

	private static SubmittedIdentifier extract(IdentifierExtractor extractor, RateLimitRequest request) {
		try {
			return extractor.extract(request);
		}
		catch (RuntimeException ex) {
			// Never skip the check: what cannot be read is charged as unreadable.
			return SubmittedIdentifier.UNREADABLE;
		}
	}

	/**
	 * Returns whether some endpoint is sensitive, so that web integrations know whether
	 * request bodies may need reading.
	 * @return whether any endpoint has the dual-bucket control
	 */
	public boolean hasSensitiveEndpoints() {
		return !this.sensitiveEndpoints.isEmpty();
	}

	/**
	 * Returns how this limiter decides which endpoint a request is.
	 * @return the endpoint resolver
	 */
	public EndpointResolver endpoints() {
		return this.endpoints;
	}

	/**
	 * Returns the policies in force.
	 * @return the reloadable policies
	 */
	public ReloadablePolicies policies() {
		return this.policies;
	}

	/**
	 * Returns the tokens each endpoint's requests cost.
	 * @return the weights
	 */
	public EndpointWeights weights() {
		return this.weights;
	}

	/**
	 * Returns the key of the bucket a client of an endpoint draws on, as {@link #evaluate}
	 * derives it, for operators who ask about one client's bucket.
	 * @param endpoint the endpoint
	 * @param request a request of the client, resolved to its anonymous identity
	 * @return the bucket key
	 */
	public BucketKey networkBucketKey(EndpointTemplate endpoint, RateLimitRequest request) {
		return this.keys.keyFor(endpoint, this.identities.resolveAnonymous(request));
	}

	/**
	 * Returns the store of local buckets.
	 * @return the store
	 */
	public BucketStore buckets() {
		return this.buckets;
	}

	/**
	 * Returns the store of the buckets of global policies.
	 * @return the global store, the local one if none was configured
	 */
	public BucketStore globalBuckets() {
		return this.globalBuckets;
	}

	/**
	 * Returns the store of the permits of local in-flight limits.
	 * @return the store
	 */
	public PermitStore permits() {
		return this.permits;
	}

	/**
	 * Returns the store of the permits of global in-flight limits.
	 * @return the global store, the local one if none was configured
	 */
	public PermitStore globalPermits() {
		return this.globalPermits;
	}

	/**
	 * Returns the store of the buckets of batched global policies.
	 * @return the batched store, the global one if none was configured
	 */
	public BucketStore batchedGlobalBuckets() {
		return this.batchedGlobalBuckets;
	}

	/**
	 * Builds a {@link RateLimiter}. Every setter checks its argument; {@link #build()}
	 * checks that they fit together.
	 */
	public static final class Builder {

		private final EndpointResolver endpoints;

		private final ReloadablePolicies policies;

		private IdentityResolver identities = IdentityResolver.networkOnly();

		private EndpointWeights weights = EndpointWeights.uniform();

		private @Nullable BucketKeys keys;

		private @Nullable BucketStore buckets;

		private @Nullable BucketStore globalBuckets;

		private @Nullable BucketStore batchedGlobalBuckets;

		private @Nullable PermitStore permits;

		private @Nullable PermitStore globalPermits;

		private TimeSource time = TimeSource.system();

		private boolean legacyHeaders;

		private boolean rejectUnknownEndpoints;

		private final Map<EndpointTemplate, IdentifierExtractor> sensitiveEndpoints = new HashMap<>();

		private @Nullable TrustedDevices devices;

		private Builder(EndpointResolver endpoints, ReloadablePolicies policies) {
			this.endpoints = Objects.requireNonNull(endpoints, "endpoints must not be null");
			this.policies = Objects.requireNonNull(policies, "policies must not be null");
		}

		/**
		 * Sets how identities are resolved; by default network identity only, with no
		 * trusted proxy.
		 * @param identities the identity resolver
		 * @return this builder
		 */
		public Builder identities(IdentityResolver identities) {
			this.identities = Objects.requireNonNull(identities, "identities must not be null");
			return this;
		}

		/**
		 * Sets the cost of requests per endpoint; by default every request costs one token.
		 * @param weights the weights
		 * @return this builder
		 */
		public Builder weights(EndpointWeights weights) {
			this.weights = Objects.requireNonNull(weights, "weights must not be null");
			return this;
		}

		/**
		 * Sets how bucket keys are built; by default under a random per-process secret,
		 * without the network identity of authenticated principals.
		 * @param keys the key builder
		 * @return this builder
		 */
		public Builder bucketKeys(BucketKeys keys) {
			this.keys = Objects.requireNonNull(keys, "keys must not be null");
			return this;
		}

		/**
		 * Sets the bucket store; by default a local store of 100,000 buckets.
		 * @param buckets the store
		 * @return this builder
		 */
		public Builder buckets(BucketStore buckets) {
			this.buckets = Objects.requireNonNull(buckets, "buckets must not be null");
			return this;
		}

		/**
		 * Sets the store for the buckets of global policies, shared by all replicas; by
		 * default global policies use the local store, as if they were local.
		 * @param globalBuckets the shared store
		 * @return this builder
		 */
		public Builder globalBuckets(BucketStore globalBuckets) {
			this.globalBuckets = Objects.requireNonNull(globalBuckets, "globalBuckets must not be null");
			return this;
		}

		/**
		 * Sets the store for the buckets of {@code GLOBAL_BATCHED} policies, deciding from
		 * leased tokens; by default they use the global store, as if they were exact.
		 * @param batchedGlobalBuckets the store, usually a {@code LeasedBucketStore}
		 * @return this builder
		 */
		public Builder batchedGlobalBuckets(BucketStore batchedGlobalBuckets) {
			this.batchedGlobalBuckets = Objects.requireNonNull(batchedGlobalBuckets,
					"batchedGlobalBuckets must not be null");
			return this;
		}

		/**
		 * Sets the store of the permits of in-flight limits; by default one in memory for
		 * 100,000 callers holding permits at once.
		 * @param permits the store
		 * @return this builder
		 */
		public Builder permits(PermitStore permits) {
			this.permits = Objects.requireNonNull(permits, "permits must not be null");
			return this;
		}

		/**
		 * Sets the store of the permits of {@code GLOBAL} in-flight limits, shared by all
		 * replicas; by default they use the local store, as if they were local.
		 * @param globalPermits the shared store
		 * @return this builder
		 */
		public Builder globalPermits(PermitStore globalPermits) {
			this.globalPermits = Objects.requireNonNull(globalPermits, "globalPermits must not be null");
			return this;
		}

		/**
		 * Sets the clock of the default bucket store and of the legacy reset field.
		 * @param time the time source
		 * @return this builder
		 */
		public Builder timeSource(TimeSource time) {
			this.time = Objects.requireNonNull(time, "time must not be null");
			return this;
		}

		/**
		 * Sets whether to add {@code X-RateLimit-Limit}, {@code -Remaining} and
		 * {@code -Reset} to the standard fields.
		 * @param legacyHeaders whether to send the legacy fields
		 * @return this builder
		 */
		public Builder legacyHeaders(boolean legacyHeaders) {
			this.legacyHeaders = legacyHeaders;
			return this;
		}

		/**
		 * Sets whether requests the application has no endpoint for are refused at once
		 * ({@link Decision.Outcome#UNKNOWN_ENDPOINT}), before any identity work and without a
		 * bucket, instead of being limited under the {@code UNKNOWN} policy. Only those that
		 * nothing serves: {@link EndpointTemplate#SERVED_UNKNOWN} is limited as usual.
		 * @param rejectUnknownEndpoints whether to refuse unknown endpoints
		 * @return this builder
		 */
		public Builder rejectUnknownEndpoints(boolean rejectUnknownEndpoints) {
			this.rejectUnknownEndpoints = rejectUnknownEndpoints;
			return this;
		}

		/**
		 * Makes an endpoint sensitive (a login): a request must pass both the bucket of its
		 * client and the bucket of the account identifier it submits, so neither a flood from
		 * one address nor guessing one account's password from many addresses gets through.
		 * @param endpoint the sensitive endpoint
		 * @param identifiers reads the submitted identifier
		 * @return this builder
		 */
		public Builder sensitiveEndpoint(EndpointTemplate endpoint, IdentifierExtractor identifiers) {
			Objects.requireNonNull(endpoint, "endpoint must not be null");
			Objects.requireNonNull(identifiers, "identifiers must not be null");
			if (endpoint.isReserved()) {
				throw new IllegalArgumentException("Only real endpoints can be sensitive, not '" + endpoint + "'");
			}
			this.sensitiveEndpoints.put(endpoint, identifiers);
			return this;
		}

		/**
		 * Gives sensitive endpoints trusted devices: a successful attempt earns a device
		 * token, and a later attempt on the same account with a valid token is charged to
		 * that device's own bucket instead of the account's shared one, so guessing an
		 * account's password from elsewhere does not lock its owner out. The client's bucket
		 * applies as always.
		 * @param tokens signs and verifies the tokens
		 * @param header the request header a client without cookies sends its token in
		 * @param cookie the cookie a browser sends its token in
		 * @return this builder
		 */
		public Builder trustedDevices(DeviceTokens tokens, String header, String cookie) {
			this.devices = new TrustedDevices(tokens, header, cookie);
			return this;
		}

		/**
		 * Builds the limiter.
		 * @return the limiter
		 * @throws IllegalArgumentException if a weight exceeds the capacity of the built-in
		 * default policy, so that such requests could never pass
		 */
		public RateLimiter build() {
			PolicySettings settings = this.policies.settings();
			long capacity = BucketLimits.of(settings.defaultRps(), settings.burstFactor(), 1).quota();
			this.weights.asMap().forEach((endpoint, weight) -> {
				if (weight > capacity) {
					throw new IllegalArgumentException("The weight " + weight + " of '" + endpoint
							+ "' exceeds the capacity " + capacity + " of the built-in default policy (rate "
							+ settings.defaultRps().toPlainString() + " x burst factor "
							+ settings.burstFactor().toPlainString() + "): lower the weight or raise the default rate");
				}
			});
			return new RateLimiter(this);
		}

	}

}
