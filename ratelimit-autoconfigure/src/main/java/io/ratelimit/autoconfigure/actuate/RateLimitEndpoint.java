package io.ratelimit.autoconfigure.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStoreStats;
import io.ratelimit.core.bucket.LeasedBucketStore;
import io.ratelimit.core.endpoint.EndpointResolver;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.Policy;
import io.ratelimit.core.policy.PolicyReloadResult;
import io.ratelimit.core.policy.PolicyMode;
import io.ratelimit.core.policy.PolicyResolution;
import io.ratelimit.core.policy.PolicySnapshot;
import io.ratelimit.core.policy.RejectedRow;
import io.ratelimit.core.policy.ReloadablePolicies;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Priority;
import jakarta.servlet.http.HttpServletRequest;
// Spring Framework 7 reads nullness from JSpecify: Actuator makes an operation parameter
// optional when it is annotated so.
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The {@code ratelimit} Actuator endpoint:
 * <ul>
 * <li>{@code GET /actuator/ratelimit}: the policy snapshot in force, a page of its
 * policies ({@code page}, {@code size}; {@code tenant} and {@code endpoint} filter them),
 * its rejected rows, the last reload failure and the bucket-store size;</li>
 * <li>{@code GET /actuator/ratelimit/explain?method=GET&path=/api/users/42&tenant=acme}:
 * the template the request resolves to, the plan of the tenant and where it came from, the
 * precedence chain walked and the policy chosen, then each layered limit with a row for
 * the request, with its own chain and the row it came from. {@code plan=pro} explains the
 * request on that plan instead, as a key or token naming it would have it. {@code endpoint=GET /api/users/*} may be passed instead of method and path, and
 * must be over JMX, where there is no HTTP request to resolve against. For a
 * {@code GLOBAL_BATCHED} policy the answer adds this replica's leases, and with
 * {@code client=203.0.113.7} the lease of that address's bucket;</li>
 * <li>{@code POST /actuator/ratelimit/reload}: reads the policies now.</li>
 * </ul>
 * Like every Actuator endpoint but health, it is not exposed until
 * {@code management.endpoints.web.exposure.include} names it, and it is secured by the
 * application's own Spring Security configuration: reload changes the limits in force,
 * so it must require authentication.
 */
@Endpoint(id = "ratelimit")
public class RateLimitEndpoint {

	private static final String EXPLAIN = "explain";

	private static final String RELOAD = "reload";

	/** The plan explained was passed as a parameter: a key's or a token's plan. */
	private static final String PLAN_FROM_PARAMETER = "parameter";

	/** The plan explained is the tenant's in the tenant-to-plan table. */
	private static final String PLAN_FROM_TABLE = "tenant-plan table";

	/** No plan: the tenant has none in the table, and none was passed. */
	private static final String PLAN_NONE = "none";

	private final ReloadablePolicies policies;

	private final RateLimiter limiter;

	private final EndpointResolver endpoints;

	private final @Nullable LeasedBucketStore leases;

	private @Nullable LoadShedder shedder;

	/**
	 * Creates the endpoint.
	 * @param limiter the limiter whose policies and buckets are reported
	 * @param endpoints the resolver the limiter charges requests with
	 * @param leases the leases of batched global policies, {@code null} without them
	 */
	public RateLimitEndpoint(RateLimiter limiter, EndpointResolver endpoints, @Nullable LeasedBucketStore leases) {
		this.limiter = Objects.requireNonNull(limiter, "limiter must not be null");
		this.policies = limiter.policies();
		this.endpoints = Objects.requireNonNull(endpoints, "endpoints must not be null");
		this.leases = leases;
	}

	/**
	 * Creates the endpoint of a limiter without batched global policies.
	 * @param limiter the limiter whose policies and buckets are reported
	 * @param endpoints the resolver the limiter charges requests with
	 */
	public RateLimitEndpoint(RateLimiter limiter, EndpointResolver endpoints) {
		this(limiter, endpoints, null);
	}

	/**
	 * Sets the load shedder whose class of an endpoint and current limit {@code explain}
	 * reports.
	 * @param shedder the shedder, {@code null} when load shedding is off
	 */
	public void setLoadShedder(@Nullable LoadShedder shedder) {
		this.shedder = shedder;
	}

	/**
	 * Reports the policies in force, a page at a time, and the bucket store.
	 * @param page the page of policies, from 0; the first if absent
	 * @param size the policies per page, from 1 to 1000; 100 if absent
	 * @param tenant only the policies of this tenant ({@code project_id}), all if absent
	 * @param plan only the policies of this plan, all if absent
	 * @param endpoint only the policies written for this endpoint, e.g.
	 * {@code GET /api/users/*} or {@code default}, all if absent
	 * @return the report
	 */
	@ReadOperation
	public RateLimitDescriptor rateLimit(@Nullable Integer page, @Nullable Integer size, @Nullable String tenant,
			@Nullable String plan, @Nullable String endpoint) {
		PolicyListing listing = PolicyListing.of(page, size, tenant, plan, endpoint);
		PolicySnapshot snapshot = this.policies.current();
		PolicyListing.Page listed = listing.page(snapshot);
		BucketStoreStats stats = this.limiter.buckets().stats();
		return new RateLimitDescriptor(snapshot.version(), snapshot.loadedAt(), listed.policies(), listed.page(),
				PolicyDescriptor.of(snapshot.defaultPolicy()), PolicyDescriptor.of(snapshot.unknownPolicy()),
				rejected(snapshot), snapshot.rejected().size(), this.policies.lastFailure(),
				new BucketsDescriptor(stats.entries(), stats.evictions()));
	}

	/**
	 * Explains which policy a request gets, and why.
	 * @param operation must be {@code explain}
	 * @param method the request method, with {@code path}
	 * @param path the request path as sent, without query, e.g. {@code /api/users/42}
	 * @param endpoint the endpoint template instead of method and path, e.g.
	 * {@code GET /api/users/*}
	 * @param tenant the tenant ({@code project_id}) of the request, none if absent
	 * @param client the address of an anonymous client, for the lease of its bucket under a
	 * batched global policy
	 * @param plan the plan to explain the request on, as if its credential named it;
	 * without it, the plan the tenant-to-plan table gives the tenant, if any
	 * @return the explanation, {@code null} (404) for any other operation
	 */
	@ReadOperation
	public @Nullable ExplanationDescriptor explain(@Selector String operation,
			@Nullable String method, @Nullable String path,
			@Nullable String endpoint, @Nullable String tenant, @Nullable String client, @Nullable String plan) {
		if (!EXPLAIN.equals(operation)) {
			return null;
		}
		EndpointTemplate template = (endpoint != null) ? parse(endpoint) : resolve(method, path);
		PolicySnapshot snapshot = this.policies.current();
		String assigned = (plan != null) ? plan : snapshot.planOf(tenant, null);
		String planSource = (plan != null) ? PLAN_FROM_PARAMETER : (assigned != null) ? PLAN_FROM_TABLE : PLAN_NONE;
		PolicyResolution resolution = snapshot.explain(template, tenant, assigned);
		List<LinkDescriptor> chain = links(resolution);
		List<LayerDescriptor> layers = snapshot.explainLayered(template, tenant, assigned)
			.stream()
			.map(LayerDescriptor::of)
			.toList();
		return new ExplanationDescriptor(snapshot.version(), template.toString(), tenant, chain,
				PolicyDescriptor.of(resolution.policy()), layers, batched(resolution.policy(), template, client),
				assigned, planSource, shedding(template));
	}

	private @Nullable SheddingDescriptor shedding(EndpointTemplate template) {
		LoadShedder shedder = this.shedder;
		if (shedder == null) {
			return null;
		}
		Priority priority = shedder.priorityOf(template);
		return new SheddingDescriptor(priority.name(), shedder.isShadow() ? "shadow" : "enforce",
				shedder.currentLimit(), shedder.ceiling(priority), shedder.inFlight(), shedder.isShedding());
	}

	private static List<LinkDescriptor> links(PolicyResolution resolution) {
		return resolution.chain()
			.stream()
			.map((link) -> new LinkDescriptor(link.endpoint().toString(), link.tenant(),
					(link.found() != null) ? PolicyDescriptor.of(link.found()) : null, link.plan()))
			.toList();
	}

	private @Nullable BatchDescriptor batched(Policy policy, EndpointTemplate template, @Nullable String client) {
		LeasedBucketStore leases = this.leases;
		if (!policy.isBatched() || leases == null) {
			return null;
		}
		LeasedBucketStore.LeaseStats stats = leases.leaseStats();
		LeaseDescriptor lease = null;
		if (client != null) {
			LeasedBucketStore.LeaseState state = leases
				.lease(this.limiter.networkBucketKey(template, new ClientProbe(template, client)));
			lease = (state != null) ? LeaseDescriptor.of(state) : null;
		}
		return new BatchDescriptor(stats.leases(), stats.leasedUnits() / BucketLimits.UNITS_PER_TOKEN, client, lease,
				stats.pendingCalls());
	}

	/** Not among WebEndpointResponse's constants. */
	private static final int FORBIDDEN = 403;

	/**
	 * Reads the policies now, as the periodic refresh does. Only for an authenticated
	 * caller: reload changes the limits in force, so an application that exposed the
	 * endpoint without securing it still refuses anonymous reloads (403).
	 * @param operation must be {@code reload}
	 * @return the snapshot in force afterwards, and the failure if the read failed
	 */
	@WriteOperation
	public WebEndpointResponse<ReloadDescriptor> reload(@Selector String operation) {
		if (!RELOAD.equals(operation)) {
			throw new InvalidEndpointRequestException("Unknown operation '" + operation + "', expected 'reload'",
					"Unknown operation");
		}
		if (isAnonymousWebCaller()) {
			return new WebEndpointResponse<>(FORBIDDEN);
		}
		PolicyReloadResult result = this.policies.reload();
		PolicySnapshot snapshot = result.snapshot();
		return new WebEndpointResponse<>(new ReloadDescriptor(result.succeeded(), snapshot.version(),
				snapshot.loadedAt(), snapshot.policies().size(), rejected(snapshot), snapshot.rejected().size(),
				result.failure()));
	}

	/**
	 * Whether the operation runs for an HTTP request without an authenticated principal.
	 * Read from the request rather than taken as an operation parameter, which would make
	 * Actuator demand a JSON body. JMX calls have no web request; JMX authenticates them.
	 */
	private static boolean isAnonymousWebCaller() {
		return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes web
				&& web.getRequest().getUserPrincipal() == null;
	}

	static EndpointTemplate parse(String endpoint) {
		try {
			return EndpointTemplate.parse(endpoint);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid endpoint template");
		}
	}

	private EndpointTemplate resolve(@Nullable String method,
			@Nullable String path) {
		if (method == null || path == null) {
			throw new InvalidEndpointRequestException("Pass 'method' and 'path', or 'endpoint'",
					"Missing parameters");
		}
		if (!path.startsWith("/") || path.indexOf('?') >= 0 || path.indexOf('#') >= 0) {
			throw new InvalidEndpointRequestException(
					"Invalid path '" + path + "': expected the request path as sent, starting with '/', without query",
					"Invalid path");
		}
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			throw new InvalidEndpointRequestException(
					"'method' and 'path' can only be resolved over HTTP; pass 'endpoint' instead", "Not over HTTP");
		}
		HttpServletRequest admin = servlet.getRequest();
		return this.endpoints.resolve(new ProbeRequest(admin, method.toUpperCase(Locale.ROOT), path));
	}

	private static List<RejectedRowDescriptor> rejected(PolicySnapshot snapshot) {
		return snapshot.rejected()
			.stream()
			.limit(PolicyListing.MAXIMUM_REJECTED)
			.map(RejectedRowDescriptor::of)
			.toList();
	}

	/**
	 * The policies in force and the bucket store.
	 *
	 * @param version the snapshot version, 0 while the built-in policies serve
	 * @param loadedAt when the rows of the snapshot were read
	 * @param policies the page asked for of the policies loaded from rows that pass the
	 * filters, in the order of the table
	 * @param page which page that is, of how many
	 * @param defaultPolicy the policy of endpoints without one of their own
	 * @param unknownPolicy the policy of requests the application does not serve
	 * @param rejected the first 100 rows that did not become policies, with the reasons
	 * @param rejectedRows the number of rows that did not become policies
	 * @param lastFailure why the most recent reload failed, {@code null} if it succeeded
	 * @param buckets the bucket store
	 */
	public record RateLimitDescriptor(long version, Instant loadedAt, List<PolicyDescriptor> policies,
			PageDescriptor page, PolicyDescriptor defaultPolicy, PolicyDescriptor unknownPolicy,
			List<RejectedRowDescriptor> rejected, int rejectedRows, @Nullable String lastFailure,
			BucketsDescriptor buckets) implements OperationResponseBody {
	}

	/**
	 * Which page of the policies a listing holds.
	 *
	 * @param number the page, from 0
	 * @param size the policies per page
	 * @param totalElements the policies that pass the filters, on all pages
	 * @param totalPages the pages they fill
	 */
	public record PageDescriptor(int number, int size, long totalElements, long totalPages) {
	}

	/**
	 * One policy.
	 *
	 * @param endpoint the endpoint template, {@code default} or {@code UNKNOWN}
	 * @param tenant the tenant ({@code project_id}), {@code null} for a plan's or a global
	 * policy
	 * @param rps the rate in requests per second, as exact decimal text; {@code 0} for a limit
	 * of requests in flight, which has no rate
	 * @param mode {@code ENFORCE}, {@code SHADOW} or {@code OFF}
	 * @param scope {@code LOCAL}, {@code GLOBAL} or {@code GLOBAL_BATCHED}
	 * @param origin {@code row <id>} or {@code built-in}
	 * @param limit the name of a layered limit, {@code null} for an endpoint's own limit
	 * @param appliesTo {@code ENDPOINT}, {@code GROUP} or {@code API}: what shares a bucket
	 * @param group the group of endpoints of a {@code GROUP} limit, else {@code null}
	 * @param counts {@code POINTS} (the endpoint's weight), {@code REQUESTS} or
	 * {@code IN_FLIGHT} (requests in progress at once)
	 * @param quota the {@code q} of the {@code RateLimit-Policy} item: what a full bucket holds,
	 * or the most requests in progress of an in-flight limit
	 * @param window the {@code w} of the item, in seconds; {@code 0} for an in-flight limit
	 * @param plan the plan of the policy, {@code null} for a tenant's or a global policy
	 */
	public record PolicyDescriptor(String endpoint, @Nullable String tenant, String rps,
			String mode, String scope, String origin, @Nullable String limit, String appliesTo,
			@Nullable String group, String counts, long quota, long window, @Nullable String plan) {

		static PolicyDescriptor of(Policy policy) {
			boolean inFlight = policy.isInFlight();
			return new PolicyDescriptor(policy.endpoint().toString(), policy.tenant(),
					inFlight ? "0" : policy.rps().toPlainString(), policy.mode().name(), policy.scope().name(),
					policy.origin(), policy.limitName(), policy.target().name(), policy.group(), policy.unit().name(),
					policy.limits().quota(), inFlight ? 0 : policy.limits().windowSeconds(), policy.plan());
		}

	}

	/**
	 * One layered limit of a request: how its own chain resolved.
	 *
	 * @param limit the limit's name
	 * @param chain the precedence chain walked for this limit, the last link being the match
	 * @param policy the row that applies; of mode {@code OFF} when the limit is switched off
	 * for the request
	 * @param applies whether the request is charged to this limit
	 */
	public record LayerDescriptor(String limit, List<LinkDescriptor> chain, PolicyDescriptor policy,
			boolean applies) {

		static LayerDescriptor of(PolicyResolution resolution) {
			Policy policy = resolution.policy();
			return new LayerDescriptor(policy.name(), links(resolution), PolicyDescriptor.of(policy),
					policy.mode() != PolicyMode.OFF);
		}

	}

	/**
	 * A row that did not become a policy.
	 *
	 * @param id the row id
	 * @param endpoint the endpoint column as stored
	 * @param tenant the project_id column as stored
	 * @param rps the rps_limit column as stored
	 * @param mode the mode column as stored
	 * @param limit the limit_name column as stored
	 * @param reason what is wrong with the row
	 * @param plan the plan column as stored
	 */
	public record RejectedRowDescriptor(String id, @Nullable String endpoint,
			@Nullable String tenant, @Nullable String rps,
			@Nullable String mode, @Nullable String limit, String reason, @Nullable String plan) {

		static RejectedRowDescriptor of(RejectedRow rejected) {
			return new RejectedRowDescriptor(rejected.row().id(), rejected.row().endpoint(), rejected.row().tenant(),
					(rejected.row().rpsLimit() != null) ? rejected.row().rpsLimit().toPlainString() : null,
					rejected.row().mode(), rejected.row().limitName(), rejected.reason(), rejected.row().plan());
		}

	}

	/**
	 * The bucket store.
	 *
	 * @param entries the buckets held now
	 * @param evictions the buckets dropped since start
	 */
	public record BucketsDescriptor(long entries, long evictions) {
	}

	/**
	 * Why a request gets its policy.
	 *
	 * @param version the snapshot version the answer comes from
	 * @param endpoint the template the request resolves to, {@code UNKNOWN} if no handler
	 * serves it
	 * @param tenant the tenant asked about
	 * @param chain the precedence chain walked, the last link being the match
	 * @param policy the endpoint's own policy
	 * @param layers every layered limit with a row for the request, each with its own
	 * chain and the row it came from, in the order of the response fields
	 * @param batched this replica's leases, under a batched global policy
	 * @param plan the plan the chain was walked with, {@code null} for none
	 * @param planSource where that plan came from: {@code tenant-plan table}, {@code parameter}
	 * or {@code none}. A request's key or token may name a plan of its own when the table
	 * names none for its tenant: pass it as {@code plan} to see its limits
	 * @param shedding the endpoint's priority class and the current concurrency limit,
	 * {@code null} when load shedding is off
	 */
	public record ExplanationDescriptor(long version, String endpoint, @Nullable String tenant,
			List<LinkDescriptor> chain, PolicyDescriptor policy, List<LayerDescriptor> layers,
			@Nullable BatchDescriptor batched, @Nullable String plan, String planSource,
			@Nullable SheddingDescriptor shedding) implements OperationResponseBody {
	}

	/**
	 * What load shedding does with requests to the endpoint explained.
	 *
	 * @param priority the endpoint's priority class
	 * @param mode {@code enforce}, or {@code shadow} when shedding is only counted
	 * @param limit the concurrency limit in force
	 * @param ceiling how many requests of the endpoint's class may be in flight at once
	 * @param inFlight the requests in flight now
	 * @param shedding whether requests were shed in the last ten seconds
	 */
	public record SheddingDescriptor(String priority, String mode, int limit, int ceiling, int inFlight,
			boolean shedding) {
	}

	/**
	 * This replica's leases, under a batched global policy.
	 *
	 * @param replicaLeases the keys of batched policies with a lease on this replica
	 * @param replicaLeasedTokens the tokens those leases hold
	 * @param client the client asked about, {@code null} if none
	 * @param lease the lease of the client's bucket, {@code null} if none is held here
	 * @param replicaPendingCalls the background Redis calls of this replica queued or in
	 * flight (at most 1,000 in flight and 1,000 of each kind queued)
	 */
	public record BatchDescriptor(long replicaLeases, long replicaLeasedTokens, @Nullable String client,
			@Nullable LeaseDescriptor lease, long replicaPendingCalls) {
	}

	/**
	 * One bucket's lease on this replica.
	 *
	 * @param leasedTokens the tokens this replica may admit without Redis
	 * @param nextLeaseTokens the size of the next lease
	 * @param demandPerSecond the bucket's recent demand on this replica
	 * @param sharedRemainingTokens the tokens left in Redis after the last lease
	 * @param refilling whether a lease is being taken in the background
	 * @param lastLeaseMillis how long the last lease took
	 * @param creditTokens the tokens given on credit that Redis has not been charged for yet
	 */
	public record LeaseDescriptor(double leasedTokens, double nextLeaseTokens, double demandPerSecond,
			double sharedRemainingTokens, boolean refilling, double lastLeaseMillis, double creditTokens) {

		static LeaseDescriptor of(LeasedBucketStore.LeaseState state) {
			double unitsPerToken = BucketLimits.UNITS_PER_TOKEN;
			return new LeaseDescriptor(state.leasedUnits() / unitsPerToken, state.nextLeaseUnits() / unitsPerToken,
					state.demandPerSecond(), state.sharedRemainingUnits() / unitsPerToken, state.refilling(),
					state.roundTripNanos() / 1e6, state.creditUnits() / unitsPerToken);
		}

	}

	/** An anonymous request from the client asked about, for its bucket key. */
	private record ClientProbe(EndpointTemplate endpoint, String remoteAddress) implements RateLimitRequest {

		@Override
		public String method() {
			return Objects.requireNonNullElse(this.endpoint.method(), "GET");
		}

		@Override
		public String path() {
			return Objects.requireNonNullElse(this.endpoint.path(), "/");
		}

		@Override
		public List<String> headers(String name) {
			return List.of();
		}

	}

	/**
	 * One link of the precedence chain.
	 *
	 * @param endpoint the endpoint looked up
	 * @param tenant the tenant looked up, {@code null} for a plan's or the global link
	 * @param found the policy row found, {@code null} if the table has none
	 * @param plan the plan looked up, {@code null} for a tenant's or the global link
	 */
	public record LinkDescriptor(String endpoint, @Nullable String tenant,
			@Nullable PolicyDescriptor found, @Nullable String plan) {
	}

	/**
	 * The outcome of a reload.
	 *
	 * @param succeeded whether the rows were read
	 * @param version the version in force afterwards: the new one, or on failure the last
	 * good one
	 * @param loadedAt when the rows of that version were read
	 * @param policies the number of policies loaded from rows
	 * @param rejected the first 100 rows that did not become policies
	 * @param rejectedRows the number of rows that did not become policies
	 * @param failure why the rows could not be read, {@code null} on success
	 */
	public record ReloadDescriptor(boolean succeeded, long version, Instant loadedAt, int policies,
			List<RejectedRowDescriptor> rejected, int rejectedRows,
			@Nullable String failure) implements OperationResponseBody {
	}

}
