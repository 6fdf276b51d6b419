package io.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.core.bucket.BurstHandling;
import io.ratelimit.core.identity.ForwardingHeader;
import io.ratelimit.core.identity.IdentifierNormalization;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the rate limiter.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

	/**
	 * Whether to rate-limit requests.
	 */
	private boolean enabled = true;

	/**
	 * Burst factor: buckets hold burst-factor x rps_limit tokens. At least 1.
	 */
	private BigDecimal burstFactor = BigDecimal.valueOf(2);

	/**
	 * Secret that bucket keys are derived from with HMAC-SHA256, at least 16 bytes. Replicas
	 * that share buckets must share it. A random secret per process when not set.
	 */
	private @Nullable String keySecret;

	/**
	 * What happens to requests for which the application has no endpoint template: 'limit'
	 * charges them to the UNKNOWN policy by client network, 'reject' answers 404 before any
	 * identity work to those nothing serves (static resources and catch-all routes stay
	 * limited as UNKNOWN).
	 */
	private UnknownEndpoint unknownEndpoint = UnknownEndpoint.LIMIT;

	/**
	 * What happens to a request when the limiter itself fails: 'open' lets it through,
	 * 'closed' answers 503. Either way the failure is counted.
	 */
	private FailureMode failureMode = FailureMode.OPEN;

	/**
	 * Whether to add the legacy X-RateLimit-Limit, -Remaining and -Reset headers.
	 */
	private boolean legacyHeaders;

	/**
	 * Tokens one request costs, as 'TEMPLATE=WEIGHT' entries such as 'POST /api/orders=5'.
	 * Endpoints not listed cost one token.
	 */
	private List<String> weights = new ArrayList<>();

	/**
	 * Named groups of endpoints that policy rows with applies_to GROUP count in one bucket
	 * per caller, each a list of templates such as 'POST /api/issues'.
	 */
	private Map<String, List<String>> groups = new LinkedHashMap<>();

	private final Filter filter = new Filter();

	private final ClientIp clientIp = new ClientIp();

	private final Policy policy = new Policy();

	private final Buckets buckets = new Buckets();

	private final InFlight inFlight = new InFlight();

	private final ApiKey apiKey = new ApiKey();

	private final Jwt jwt = new Jwt();

	private final Schema schema = new Schema();

	private final Login login = new Login();

	private final Redis redis = new Redis();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public BigDecimal getBurstFactor() {
		return this.burstFactor;
	}

	public void setBurstFactor(BigDecimal burstFactor) {
		this.burstFactor = burstFactor;
	}

	public @Nullable String getKeySecret() {
		return this.keySecret;
	}

	public void setKeySecret(@Nullable String keySecret) {
		this.keySecret = keySecret;
	}

	public UnknownEndpoint getUnknownEndpoint() {
		return this.unknownEndpoint;
	}

	public void setUnknownEndpoint(UnknownEndpoint unknownEndpoint) {
		this.unknownEndpoint = unknownEndpoint;
	}

	public FailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(FailureMode failureMode) {
		this.failureMode = failureMode;
	}

	public boolean isLegacyHeaders() {
		return this.legacyHeaders;
	}

	public void setLegacyHeaders(boolean legacyHeaders) {
		this.legacyHeaders = legacyHeaders;
	}

	public List<String> getWeights() {
		return this.weights;
	}

	public void setWeights(List<String> weights) {
		this.weights = weights;
	}

	public Map<String, List<String>> getGroups() {
		return this.groups;
	}

	public void setGroups(Map<String, List<String>> groups) {
		this.groups = groups;
	}

	public Filter getFilter() {
		return this.filter;
	}

	public ClientIp getClientIp() {
		return this.clientIp;
	}

	public Policy getPolicy() {
		return this.policy;
	}

	public Buckets getBuckets() {
		return this.buckets;
	}

	public InFlight getInFlight() {
		return this.inFlight;
	}

	public ApiKey getApiKey() {
		return this.apiKey;
	}

	public Jwt getJwt() {
		return this.jwt;
	}

	public Schema getSchema() {
		return this.schema;
	}

	public Login getLogin() {
		return this.login;
	}

	public Redis getRedis() {
		return this.redis;
	}

	/**
	 * What to do with requests the application has no handler for.
	 */
	public enum UnknownEndpoint {

		/** Charge them to the UNKNOWN policy, keyed by client network. */
		LIMIT,

		/** Answer 404 before any identity work, unless a handler serves them without a template. */
		REJECT

	}

	/**
	 * What to do with a request when the limiter fails.
	 */
	public enum FailureMode {

		/** Let the request through. */
		OPEN,

		/** Answer 503 Service Unavailable. */
		CLOSED

	}

	/**
	 * Where the filter sits relative to Spring Security.
	 */
	public enum FilterPosition {

		/**
		 * Before Spring Security: floods of bad credentials are limited by IP, and bearer
		 * tokens are verified by the limiter.
		 */
		BEFORE_SECURITY,

		/**
		 * After Spring Security: the identity is the authenticated principal of the
		 * security context, whatever the authentication mechanism.
		 */
		AFTER_SECURITY

	}

	public static class Filter {

		/**
		 * Where the filter sits relative to Spring Security's filter chain.
		 */
		private FilterPosition position = FilterPosition.BEFORE_SECURITY;

		public FilterPosition getPosition() {
			return this.position;
		}

		public void setPosition(FilterPosition position) {
			this.position = position;
		}

	}

	public static class ClientIp {

		/**
		 * Proxies whose forwarding headers are believed, as CIDR ranges or addresses. None by
		 * default: the peer address is the client.
		 */
		private List<String> trustedProxies = new ArrayList<>();

		/**
		 * Forwarding header read behind trusted proxies: 'x-forwarded-for' or 'forwarded'.
		 */
		private ForwardingHeader header = ForwardingHeader.X_FORWARDED_FOR;

		/**
		 * Prefix length that IPv6 clients are keyed by.
		 */
		private int ipv6PrefixLength = 64;

		/**
		 * Maximum number of forwarding header elements read, from the right.
		 */
		private int maxForwardedElements = 32;

		public List<String> getTrustedProxies() {
			return this.trustedProxies;
		}

		public void setTrustedProxies(List<String> trustedProxies) {
			this.trustedProxies = trustedProxies;
		}

		public ForwardingHeader getHeader() {
			return this.header;
		}

		public void setHeader(ForwardingHeader header) {
			this.header = header;
		}

		public int getIpv6PrefixLength() {
			return this.ipv6PrefixLength;
		}

		public void setIpv6PrefixLength(int ipv6PrefixLength) {
			this.ipv6PrefixLength = ipv6PrefixLength;
		}

		public int getMaxForwardedElements() {
			return this.maxForwardedElements;
		}

		public void setMaxForwardedElements(int maxForwardedElements) {
			this.maxForwardedElements = maxForwardedElements;
		}

	}

	public static class Policy {

		/**
		 * How often policies are reloaded from the database. On PostgreSQL changes also
		 * arrive at once (ratelimit.policy.notify), and this is the safety net.
		 */
		private Duration refreshInterval = Duration.ofSeconds(30);

		/**
		 * Requests per second of the built-in 'default' policy, applied when the policy
		 * table has no row for an endpoint.
		 */
		private BigDecimal defaultRps = new BigDecimal("10");

		/**
		 * Requests per second of the built-in 'UNKNOWN' policy, applied per client network
		 * to requests the application has no handler for.
		 */
		private BigDecimal unknownRps = BigDecimal.valueOf(2);

		/**
		 * Maximum number of rows read from the policy table. A table with more fails to
		 * load, and the policies loaded before stay in force.
		 */
		private int maximumPolicies = 1_000_000;

		private final Notify notify = new Notify();

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

		public BigDecimal getDefaultRps() {
			return this.defaultRps;
		}

		public void setDefaultRps(BigDecimal defaultRps) {
			this.defaultRps = defaultRps;
		}

		public BigDecimal getUnknownRps() {
			return this.unknownRps;
		}

		public void setUnknownRps(BigDecimal unknownRps) {
			this.unknownRps = unknownRps;
		}

		public int getMaximumPolicies() {
			return this.maximumPolicies;
		}

		public void setMaximumPolicies(int maximumPolicies) {
			this.maximumPolicies = maximumPolicies;
		}

		public Notify getNotify() {
			return this.notify;
		}

		/**
		 * Policy changes pushed by the database as they commit.
		 */
		public static class Notify {

			/**
			 * Whether to reload policies as soon as the policy table changes, through
			 * PostgreSQL LISTEN/NOTIFY. The periodic refresh runs either way and is the
			 * only mechanism on other databases.
			 */
			private boolean enabled = true;

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

	public static class Buckets {

		/**
		 * Maximum number of buckets held in memory.
		 */
		private long maximumEntries = 100_000;

		/**
		 * Whether authenticated principals get a separate bucket per client network. Off by
		 * default, so a stolen key used from many addresses does not multiply its budget.
		 */
		private boolean networkPerPrincipal;

		public long getMaximumEntries() {
			return this.maximumEntries;
		}

		public void setMaximumEntries(long maximumEntries) {
			this.maximumEntries = maximumEntries;
		}

		public boolean isNetworkPerPrincipal() {
			return this.networkPerPrincipal;
		}

		public void setNetworkPerPrincipal(boolean networkPerPrincipal) {
			this.networkPerPrincipal = networkPerPrincipal;
		}

	}

	/**
	 * Permits of in-flight limits (policy rows whose counts column is IN_FLIGHT).
	 */
	public static class InFlight {

		/**
		 * Maximum number of callers holding permits at once on this replica. A caller holds an
		 * entry only while a request of it is in progress; when this many do, a request of a
		 * caller without one is refused with 429.
		 */
		private int maximumKeys = 100_000;

		/**
		 * How long a permit of a GLOBAL in-flight limit lives in Redis unless renewed; the
		 * replica holding it renews it every third of this. A replica that dies leaves its
		 * permits taken for at most this long. At least 1s.
		 */
		private Duration permitTtl = Duration.ofSeconds(15);

		public int getMaximumKeys() {
			return this.maximumKeys;
		}

		public void setMaximumKeys(int maximumKeys) {
			this.maximumKeys = maximumKeys;
		}

		public Duration getPermitTtl() {
			return this.permitTtl;
		}

		public void setPermitTtl(Duration permitTtl) {
			this.permitTtl = permitTtl;
		}

	}

	public static class ApiKey {

		/**
		 * Header that carries API keys.
		 */
		private String header = "X-API-Key";

		/**
		 * Secret the key table's hashes are made with (HMAC-SHA256 of the key), at least 16
		 * bytes. The API-key tier is off until it is set.
		 */
		private @Nullable String hashSecret;

		/**
		 * Most active API keys held in memory (about 50 bytes each, plus each owner's
		 * principal and tenant once). A key table with more active keys fails to load, and
		 * the keys loaded before stay in use.
		 */
		private int maximumKeys = 1_000_000;

		public String getHeader() {
			return this.header;
		}

		public void setHeader(String header) {
			this.header = header;
		}

		public @Nullable String getHashSecret() {
			return this.hashSecret;
		}

		public void setHashSecret(@Nullable String hashSecret) {
			this.hashSecret = hashSecret;
		}

		public int getMaximumKeys() {
			return this.maximumKeys;
		}

		public void setMaximumKeys(int maximumKeys) {
			this.maximumKeys = maximumKeys;
		}

	}

	public static class Jwt {

		/**
		 * Claim that names the tenant of a bearer token's subject.
		 */
		private String tenantClaim = "project_id";

		/**
		 * Claim that names the plan of a bearer token's subject. A plan the
		 * 'rate_limit_tenant_plan' table gives the token's tenant outranks it.
		 */
		private String planClaim = "plan";

		public String getTenantClaim() {
			return this.tenantClaim;
		}

		public void setTenantClaim(String tenantClaim) {
			this.tenantClaim = tenantClaim;
		}

		public String getPlanClaim() {
			return this.planClaim;
		}

		public void setPlanClaim(String planClaim) {
			this.planClaim = planClaim;
		}

	}

	public static class Schema {

		/**
		 * Whether to create and upgrade the limiter's tables at startup, with a Flyway
		 * history table of their own. Independent of 'ratelimit.enabled'.
		 */
		private boolean migrate = true;

		public boolean isMigrate() {
			return this.migrate;
		}

		public void setMigrate(boolean migrate) {
			this.migrate = migrate;
		}

	}

	public static class Login {

		/**
		 * Sensitive unauthenticated endpoints, as 'TEMPLATE=FIELD' entries such as
		 * 'POST /api/login=username': each request must pass both its client's bucket and
		 * the bucket of the account named by that JSON field or form parameter.
		 */
		private List<String> endpoints = new ArrayList<>();

		/**
		 * Largest JSON request body read to find the account. Longer bodies are charged to
		 * the endpoint's one bucket of unreadable attempts, shared by all clients; the
		 * application still receives them whole. Form bodies are read by the container.
		 */
		private DataSize maxBodySize = DataSize.ofKilobytes(16);

		/**
		 * Deepest JSON nesting read to find the account.
		 */
		private int maxJsonDepth = 16;

		/**
		 * How account names are made comparable: 'none' (as sent), 'lower-case' (trimmed
		 * and lower-cased) or 'nfkc-casefold' (also NFKC-normalized and case-folded). Choose
		 * one that merges at least the spellings the application treats as one account.
		 */
		private IdentifierNormalization identifierNormalization = IdentifierNormalization.LOWER_CASE;

		/**
		 * Largest login response body held back while a device token may be due. A
		 * response past it is sent on as it comes, and its attempt earns no token.
		 */
		private DataSize maxResponseBuffer = DataSize.ofKilobytes(64);

		/**
		 * Response statuses that mean a login succeeded, as statuses or ranges such as
		 * '200-299'. A successful attempt is refunded to the account's bucket (and earns a
		 * device token when trusted devices are on); any other answer keeps the charge.
		 */
		private List<String> successStatuses = new ArrayList<>(List.of("200-299"));

		/**
		 * Trusted devices of login endpoints.
		 */
		private final Device device = new Device();

		public List<String> getSuccessStatuses() {
			return this.successStatuses;
		}

		public void setSuccessStatuses(List<String> successStatuses) {
			this.successStatuses = successStatuses;
		}

		public Device getDevice() {
			return this.device;
		}

		public List<String> getEndpoints() {
			return this.endpoints;
		}

		public void setEndpoints(List<String> endpoints) {
			this.endpoints = endpoints;
		}

		public DataSize getMaxBodySize() {
			return this.maxBodySize;
		}

		public void setMaxBodySize(DataSize maxBodySize) {
			this.maxBodySize = maxBodySize;
		}

		public int getMaxJsonDepth() {
			return this.maxJsonDepth;
		}

		public void setMaxJsonDepth(int maxJsonDepth) {
			this.maxJsonDepth = maxJsonDepth;
		}

		public IdentifierNormalization getIdentifierNormalization() {
			return this.identifierNormalization;
		}

		public void setIdentifierNormalization(IdentifierNormalization identifierNormalization) {
			this.identifierNormalization = identifierNormalization;
		}

		public DataSize getMaxResponseBuffer() {
			return this.maxResponseBuffer;
		}

		public void setMaxResponseBuffer(DataSize maxResponseBuffer) {
			this.maxResponseBuffer = maxResponseBuffer;
		}

		/**
		 * Trusted devices: a client that logged in successfully gets a signed token for the
		 * account, and its later attempts on that account are counted apart from everyone
		 * else's, so guessing the account's password elsewhere does not lock it out.
		 */
		public static class Device {

			/**
			 * Secret device tokens are signed with (HMAC-SHA256), at least 16 bytes. Trusted
			 * devices are off until it is set; changing it revokes every token.
			 */
			private @Nullable String secret;

			/**
			 * How long a device token stays valid after the login that earned it.
			 */
			private Duration lifetime = Duration.ofDays(30);

			/**
			 * How a successful login hands out the token: as a cookie (browsers), or in a
			 * response header for API clients that keep no cookies. Tokens are accepted
			 * from either.
			 */
			private Transport transport = Transport.COOKIE;

			/**
			 * Name of the cookie that carries the token. By default
			 * '__Host-ratelimit_device' when the cookie is Secure with Path '/' (a
			 * sibling subdomain cannot set such a cookie), else 'ratelimit_device'.
			 */
			private @Nullable String cookieName;

			/**
			 * Whether the cookie is marked Secure (sent over HTTPS only).
			 */
			private boolean cookieSecure = true;

			/**
			 * SameSite attribute of the cookie.
			 */
			private String cookieSameSite = "Strict";

			/**
			 * Path attribute of the cookie.
			 */
			private String cookiePath = "/";

			/**
			 * Name of the request and response header that carries the token.
			 */
			private String header = "RateLimit-Device";

			public @Nullable String getSecret() {
				return this.secret;
			}

			public void setSecret(@Nullable String secret) {
				this.secret = secret;
			}

			public Duration getLifetime() {
				return this.lifetime;
			}

			public void setLifetime(Duration lifetime) {
				this.lifetime = lifetime;
			}

			public Transport getTransport() {
				return this.transport;
			}

			public void setTransport(Transport transport) {
				this.transport = transport;
			}

			public @Nullable String getCookieName() {
				return this.cookieName;
			}

			public void setCookieName(@Nullable String cookieName) {
				this.cookieName = cookieName;
			}

			public boolean isCookieSecure() {
				return this.cookieSecure;
			}

			public void setCookieSecure(boolean cookieSecure) {
				this.cookieSecure = cookieSecure;
			}

			public String getCookieSameSite() {
				return this.cookieSameSite;
			}

			public void setCookieSameSite(String cookieSameSite) {
				this.cookieSameSite = cookieSameSite;
			}

			public String getCookiePath() {
				return this.cookiePath;
			}

			public void setCookiePath(String cookiePath) {
				this.cookiePath = cookiePath;
			}

			public String getHeader() {
				return this.header;
			}

			public void setHeader(String header) {
				this.header = header;
			}

		}

		/**
		 * How a device token reaches the client.
		 */
		public enum Transport {

			/** A {@code Set-Cookie}: HttpOnly, Secure and SameSite by default. */
			COOKIE,

			/** A response header, for API clients that keep no cookies. */
			HEADER

		}

	}

	public static class Redis {

		/**
		 * Whether global policies use buckets in Redis when the application has Redis
		 * connection settings (spring.data.redis.*).
		 */
		private boolean enabled = true;

		/**
		 * Prefix of the limiter's keys in Redis.
		 */
		private String keyPrefix = "ratelimit:";

		/**
		 * Longest wait for one Redis command (and for connecting) before the decision is
		 * taken as the failure mode says.
		 */
		private Duration timeout = Duration.ofMillis(100);

		/**
		 * What global policies do while Redis cannot be used: 'local' falls back to
		 * per-replica buckets at the same policy, 'open' admits, 'closed' refuses with 429.
		 */
		private RedisFailureMode failureMode = RedisFailureMode.LOCAL;

		/**
		 * Consecutive Redis failures after which the limiter stops calling Redis for the
		 * cooldown.
		 */
		private int failureThreshold = 3;

		/**
		 * How long the limiter leaves Redis alone after repeated failures before one request
		 * tries it again.
		 */
		private Duration cooldown = Duration.ofSeconds(5);

		/**
		 * How GLOBAL_BATCHED policies lease tokens.
		 */
		private final Batch batch = new Batch();

		public Batch getBatch() {
			return this.batch;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public RedisFailureMode getFailureMode() {
			return this.failureMode;
		}

		public void setFailureMode(RedisFailureMode failureMode) {
			this.failureMode = failureMode;
		}

		public int getFailureThreshold() {
			return this.failureThreshold;
		}

		public void setFailureThreshold(int failureThreshold) {
			this.failureThreshold = failureThreshold;
		}

		public Duration getCooldown() {
			return this.cooldown;
		}

		public void setCooldown(Duration cooldown) {
			this.cooldown = cooldown;
		}

		public static class Batch {

			/**
			 * How the size of a lease is chosen: 'dynamic' from the key's recent demand on
			 * the replica (at most the maximum share), 'static' always the maximum share.
			 */
			private LeaseSizingMode sizing = LeaseSizingMode.DYNAMIC;

			/**
			 * Demand a dynamic lease covers; leases taking longer to arrive cover two of
			 * their round trips instead.
			 */
			private Duration horizon = Duration.ofMillis(100);

			/**
			 * Largest lease as a share of the bucket's capacity, in (0, 1]. With n replicas
			 * the limit admits at most 1.5 x n x share x capacity less than an exact one.
			 */
			private double maximumShare = 0.1;

			/**
			 * What a replica may admit of a key it holds no lease of while its first lease
			 * is on its way, as a share of the bucket's capacity in [0, maximum-share], or the
			 * request if that is more and the bucket refills it within a second. Charged to
			 * the bucket when the lease
			 * arrives, as a debt if need be; with n replicas and that credit A a key admits at
			 * most 2 x n x A beyond the limit over any window. 0 makes such a key's first
			 * request wait for Redis.
			 */
			private double coldKeyShare = 0.1;

			/**
			 * What a request gets that its key's lease and credit cannot pay for while Redis
			 * may (a burst on a key this replica has no lease of yet, or one that outran its
			 * lease): 'wait' for the key's call on its way, a round trip, and be decided by
			 * what it brings; 'refuse' at once, so that no such request waits for Redis, at
			 * the price of 429s an exact limiter would not give. A request waits for Redis no
			 * longer than ratelimit.redis.timeout either way.
			 */
			private BurstHandling burst = BurstHandling.WAIT;

			/**
			 * How long a replica keeps a key's unused lease before giving it back.
			 */
			private Duration idleReturn = Duration.ofSeconds(1);

			/**
			 * Longest time shutdown waits for the replica's leases to go back to Redis;
			 * leases not returned by then are lost, as a stopped replica's are.
			 */
			private Duration shutdownTimeout = Duration.ofSeconds(2);

			/**
			 * Longest time a background lease, return or charge waits to be written to
			 * Redis, so that the calls of many keys share one round trip; a longer interval
			 * means fewer round trips and later reconciliation.
			 */
			private Duration flushInterval = Duration.ofMillis(10);

			public LeaseSizingMode getSizing() {
				return this.sizing;
			}

			public void setSizing(LeaseSizingMode sizing) {
				this.sizing = sizing;
			}

			public Duration getHorizon() {
				return this.horizon;
			}

			public void setHorizon(Duration horizon) {
				this.horizon = horizon;
			}

			public double getMaximumShare() {
				return this.maximumShare;
			}

			public void setMaximumShare(double maximumShare) {
				this.maximumShare = maximumShare;
			}

			public double getColdKeyShare() {
				return this.coldKeyShare;
			}

			public void setColdKeyShare(double coldKeyShare) {
				this.coldKeyShare = coldKeyShare;
			}

			public BurstHandling getBurst() {
				return this.burst;
			}

			public void setBurst(BurstHandling burst) {
				this.burst = burst;
			}

			public Duration getIdleReturn() {
				return this.idleReturn;
			}

			public void setIdleReturn(Duration idleReturn) {
				this.idleReturn = idleReturn;
			}

			public Duration getShutdownTimeout() {
				return this.shutdownTimeout;
			}

			public void setShutdownTimeout(Duration shutdownTimeout) {
				this.shutdownTimeout = shutdownTimeout;
			}

			public Duration getFlushInterval() {
				return this.flushInterval;
			}

			public void setFlushInterval(Duration flushInterval) {
				this.flushInterval = flushInterval;
			}

		}

	}

	/**
	 * How the size of a lease of GLOBAL_BATCHED policies is chosen.
	 */
	public enum LeaseSizingMode {

		/** From the key's recent demand on the replica, at most the maximum share of the capacity. */
		DYNAMIC,

		/** Always the maximum share of the capacity. */
		STATIC

	}

	/**
	 * What the buckets of global policies do while Redis cannot be used.
	 */
	public enum RedisFailureMode {

		/** Fall back to per-replica buckets at the same policy: k replicas admit up to k times the limit. */
		LOCAL,

		/** Admit every request. */
		OPEN,

		/** Refuse every request with 429, Retry-After until Redis is tried again. */
		CLOSED

	}

}
