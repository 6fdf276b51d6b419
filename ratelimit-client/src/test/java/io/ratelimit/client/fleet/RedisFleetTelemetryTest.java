package io.ratelimit.client.fleet;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.client.Feedback;
import io.ratelimit.client.PacingClock;
import io.ratelimit.client.PacingStrategy;
import io.ratelimit.client.Permit;
import io.ratelimit.client.RequestPacer;
import io.ratelimit.client.Target;
import io.ratelimit.client.strategy.AdaptiveSettings;
import io.ratelimit.client.strategy.PacingStrategies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisFleetTelemetry} against the test Redis, each instance with a client of its
 * own as if in a process of its own, on a wall clock the tests move from window to window.
 * Each test works under a key prefix and a channel of its own.
 */
class RedisFleetTelemetryTest {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static final Target TARGET = new Target("api.example.com:8443", "GET /api/items/{id} ü");

	private static final Duration WINDOW = Duration.ofSeconds(10);

	/**
	 * How long an asynchronous result may take to show, and how long most tests let a
	 * command take: the first connection in a fresh JVM takes about a second, and the first
	 * commands on it are slow too.
	 */
	private static final Duration PATIENCE = Duration.ofSeconds(5);

	/** What "at once" means for a call while Redis is down; far more than it needs. */
	private static final Duration PROMPT = Duration.ofMillis(100);

	private final MovableClock clock = new MovableClock(
			(System.currentTimeMillis() / WINDOW.toMillis()) * WINDOW.toMillis() + 1);

	private final List<RedisFleetTelemetry> telemetries = new ArrayList<>();

	private final List<RedisClient> clients = new ArrayList<>();

	private String prefix = "";

	@BeforeEach
	void prefix(TestInfo test) {
		this.prefix = redis.prefix() + test.getTestMethod().orElseThrow().getName() + ":";
	}

	@AfterEach
	void close() {
		this.telemetries.forEach(RedisFleetTelemetry::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	@Test
	void viewWhenTwoProcessesReportedThenBothSeeOneAggregateOfTheLastWindow() {
		RedisFleetTelemetry first = telemetry(RedisURI.create(redis.url()));
		RedisFleetTelemetry second = telemetry(RedisURI.create(redis.url()));

		first.report(TARGET, "a", 3, false);
		second.report(TARGET, "b", 4, true);
		awaitUntil(() -> redis.keys(this.prefix).size() == 3 && "7".equals(valueOf("requests")));
		this.clock.advance(WINDOW);

		FleetView expected = new FleetView(2, 7, 1);
		assertThat(await(() -> first.view(TARGET), expected)).isEqualTo(expected);
		assertThat(await(() -> second.view(TARGET), expected)).isEqualTo(expected);
		assertThat(first.failures() + second.failures()).isZero();
	}

	@Test
	void reportCongestionWhenAnotherProcessListensThenItsViewShowsTheRefusalBeforeItReadsRedisAgain() {
		RedisFleetTelemetry first = telemetry(RedisURI.create(redis.url()));
		RedisFleetTelemetry second = telemetry(RedisURI.create(redis.url()));
		first.report(TARGET, "a", 5, false);
		second.report(TARGET, "b", 5, false);
		awaitUntil(() -> "10".equals(valueOf("requests")));
		this.clock.advance(WINDOW);
		FleetView calm = new FleetView(2, 10, 0);
		await(() -> first.view(TARGET), calm);
		assertThat(await(() -> second.view(TARGET), calm)).isEqualTo(calm);
		awaitUntil(() -> subscribers(this.prefix + "congestion") == 2);

		long reportedAt = System.nanoTime();
		first.reportCongestion(TARGET, "a");

		// The clock stands still, so the second reads Redis no more in this quarter window:
		// only the published message can tell it.
		FleetView congested = new FleetView(2, 10, 1);
		assertThat(first.view(TARGET)).isEqualTo(congested);
		assertThat(await(() -> second.view(TARGET), congested)).isEqualTo(congested);
		assertThat(Duration.ofNanos(System.nanoTime() - reportedAt)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void reportWhenSentThenEachKeyOfTheTargetExpiresWithinThreeWindows() {
		RedisFleetTelemetry telemetry = telemetry(RedisURI.create(redis.url()));

		telemetry.report(TARGET, "a", 1, true);

		awaitUntil(() -> redis.keys(this.prefix).size() == 3
				&& redis.keys(this.prefix).stream().allMatch((key) -> ttlMillis(key) > 0));
		long window = this.clock.currentTimeMillis() / WINDOW.toMillis();
		String tag = "\\{[0-9a-f]{32}\\}";
		assertThat(redis.keys(this.prefix)).allSatisfy((key) -> {
			assertThat(key).matches(Pattern.quote(this.prefix) + tag + ":" + window + ":(clients|requests|congested)");
			assertThat(ttlMillis(key)).isPositive().isLessThanOrEqualTo(3 * WINDOW.toMillis());
		});
	}

	@Test
	void everyCallWhenRedisStopsAnsweringThenReturnsAtOnceAndViewKeepsTheLastAggregateForTwoWindows()
			throws IOException {
		RedisURI direct = RedisURI.create(redis.url());
		try (StallingProxy proxy = new StallingProxy(direct.getHost(), direct.getPort())) {
			RedisURI uri = RedisURI.create(redis.url());
			uri.setHost("127.0.0.1");
			uri.setPort(proxy.port());
			RedisFleetTelemetry telemetry = telemetry(uri, Duration.ofMillis(200));
			telemetry.report(TARGET, "a", 2, false);
			awaitUntil(() -> "2".equals(valueOf("requests")));
			this.clock.advance(WINDOW);
			await(() -> telemetry.view(TARGET), new FleetView(1, 2, 0));

			proxy.stall();
			this.clock.advance(WINDOW);

			assertThat(prompt(() -> telemetry.view(TARGET))).as("one window old").isEqualTo(new FleetView(1, 2, 0));
			prompt(() -> telemetry.report(TARGET, "a", 1, false));
			prompt(() -> telemetry.reportCongestion(TARGET, "a"));
			awaitUntil(() -> telemetry.failures() == 3);
			this.clock.advance(WINDOW.plusMillis(1));
			assertThat(prompt(() -> telemetry.view(TARGET))).as("over two windows old").isNull();
		}
	}

	@Test
	void everyCallWhenRedisIsUnreachableThenReturnsAtOnceAndCountsFailures() throws IOException {
		RedisURI closedPort = RedisURI.create("127.0.0.1", closedPort());
		RedisClient client = client(closedPort);
		RedisFleetTelemetry telemetry = prompt(
				() -> telemetry(client, closedPort, WINDOW, RedisFleetTelemetry.DEFAULT_TIMEOUT));
		awaitUntil(() -> telemetry.failures() == 2);

		for (int call = 0; call < 5; call++) {
			prompt(() -> telemetry.report(TARGET, "a", 1, false));
			prompt(() -> telemetry.reportCongestion(TARGET, "a"));
			assertThat(prompt(() -> telemetry.view(TARGET))).isNull();
		}

		assertThat(telemetry.failures()).as("both connections, every report, the one read of the quarter window")
			.isEqualTo(2 + 10 + 1);
	}

	@Test
	void everyCallWhenRedisAcceptsButNeverAnswersThenReturnsAtOnceAndTheConnectionIsGivenUp() throws IOException {
		try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			RedisURI uri = RedisURI.create("127.0.0.1", silent.getLocalPort());
			// A connection is given up after a window, and at least a second.
			RedisFleetTelemetry telemetry = telemetry(client(uri), uri, Duration.ofMillis(100),
					RedisFleetTelemetry.DEFAULT_TIMEOUT);

			prompt(() -> telemetry.report(TARGET, "a", 1, false));
			assertThat(prompt(() -> telemetry.view(TARGET))).isNull();
			assertThat(telemetry.failures()).as("nothing failed yet").isZero();

			awaitUntil(() -> telemetry.failures() == 2);
			assertThat(prompt(() -> telemetry.view(TARGET))).isNull();
		}
	}

	@Test
	void acquireWhenAssistedTokenBucketsTelemetryIsUnreachableThenEveryRequestGetsItsPermit() throws Exception {
		RedisURI closedPort = RedisURI.create("127.0.0.1", closedPort());
		Duration interval = Duration.ofMillis(20);
		RedisFleetTelemetry telemetry = telemetry(client(closedPort), closedPort, interval,
				RedisFleetTelemetry.DEFAULT_TIMEOUT);
		// The study's rates (15 a minute) would make 20 requests last minutes; these keep the
		// same rules at 100 a second, and a 20 ms report interval runs the fleet routine often.
		AdaptiveSettings fast = new AdaptiveSettings(100, 200, 10, 5, 1, 1.4, 1.2, 5, 1);
		PacingStrategy aatb = PacingStrategies.assistedTokenBucket(fast, telemetry, interval, "a");
		int completed = 0;

		try (RequestPacer pacer = RequestPacer.builder().strategy(aatb).maxWait(Duration.ofSeconds(2)).build()) {
			Target target = pacer.target("GET", URI.create("https://api.example.com/api/items/1"));
			for (int request = 1; request <= 20; request++) {
				Permit permit = pacer.acquire(target, 1);
				int status = (request % 5 == 0) ? 429 : 200;
				permit.complete(Feedback.of(status, (name) -> null, System.currentTimeMillis()));
				completed++;
			}
		}

		assertThat(completed).isEqualTo(20);
		awaitUntil(() -> telemetry.failures() > 0);
	}

	@Test
	void closeWhenTheClientBelongsToTheApplicationThenLeavesTheClientOpen() {
		RedisFleetTelemetry telemetry = telemetry(RedisURI.create(redis.url()));
		telemetry.report(TARGET, "a", 1, false);
		awaitUntil(() -> "1".equals(valueOf("requests")));

		telemetry.close();

		RedisClient client = this.clients.get(0);
		try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(redis.url()))) {
			assertThat(connection.sync().ping()).isEqualTo("PONG");
		}
	}

	private RedisFleetTelemetry telemetry(RedisURI uri) {
		return telemetry(uri, PATIENCE);
	}

	/** Returns telemetry connected to the test Redis: calls made before are not sent. */
	private RedisFleetTelemetry telemetry(RedisURI uri, Duration timeout) {
		RedisFleetTelemetry telemetry = telemetry(client(uri), uri, WINDOW, timeout);
		awaitUntil(telemetry::connected);
		return telemetry;
	}

	private RedisClient client(RedisURI uri) {
		RedisClient client = RedisClient.create(uri);
		this.clients.add(client);
		return client;
	}

	private RedisFleetTelemetry telemetry(RedisClient client, RedisURI uri, Duration window, Duration timeout) {
		RedisFleetTelemetry telemetry = new RedisFleetTelemetry(client, uri, this.clock, window, this.prefix,
				timeout);
		this.telemetries.add(telemetry);
		return telemetry;
	}

	private @Nullable String valueOf(String counter) {
		return redis.keys(this.prefix)
			.stream()
			.filter((key) -> key.endsWith(":" + counter))
			.findFirst()
			.map((key) -> redis.execute((commands) -> commands.get(key)))
			.orElse(null);
	}

	private long ttlMillis(String key) {
		return redis.execute((commands) -> commands.pttl(key));
	}

	private long subscribers(String channel) {
		return redis.execute((commands) -> commands.pubsubNumsub(channel)).getOrDefault(channel, 0L);
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static void prompt(Runnable call) {
		prompt(() -> {
			call.run();
			return null;
		});
	}

	private static <T> T prompt(Supplier<T> call) {
		long start = System.nanoTime();
		T result = call.get();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPT);
		return result;
	}

	private static void awaitUntil(BooleanSupplier condition) {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("waited %s", PATIENCE).isNegative();
			sleep();
		}
	}

	/** Polls until the value is the expected one, and returns the last value read. */
	private static <T> @Nullable T await(Supplier<@Nullable T> value, T expected) {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		T last = value.get();
		while (!expected.equals(last) && System.nanoTime() - deadline < 0) {
			sleep();
			last = value.get();
		}
		return last;
	}

	private static void sleep() {
		try {
			Thread.sleep(10);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A wall clock moved by hand; its monotonic time is the system's. */
	private static final class MovableClock implements PacingClock {

		private final AtomicLong millis;

		MovableClock(long millis) {
			this.millis = new AtomicLong(millis);
		}

		void advance(Duration duration) {
			this.millis.addAndGet(duration.toMillis());
		}

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public long currentTimeMillis() {
			return this.millis.get();
		}

	}

}
