package io.ratelimit.autoconfigure.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.ratelimit.autoconfigure.GlobalBucketStore;
import io.ratelimit.autoconfigure.diagnostics.Diagnostic;
import io.ratelimit.autoconfigure.testsupport.DelayingTcpProxy;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup warning for a Redis timeout too short for the Redis measured at startup
 * ({@link Diagnostic#W017}), with a proxy playing a distant Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisTimeoutCheckTest {

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	private static final String CODE = "[RATELIMIT-" + Diagnostic.W017.name() + "]";

	private static final Pattern SUGGESTED = Pattern.compile("at least (\\d+)ms");

	@Test
	void startupWhenRedisIsFarForTheDefaultTimeoutThenW017SaysWhatTimeoutToSet(CapturedOutput output)
			throws Exception {
		// 40 ms a round trip: the default 100 ms holds one call, not a contended batched one.
		String[] timeout = new String[1];
		try (DelayingTcpProxy far = DelayingTcpProxy.start(host(), port(), Duration.ofMillis(20))) {
			runner(far).run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(GlobalBucketStore.class);
				assertThat(count(output)).isOne();
				String line = line(output);
				assertThat(line).contains("ratelimit.redis.timeout=100ms",
						"ratelimit.redis.batch.flush-interval=10ms");
				Matcher suggested = SUGGESTED.matcher(line);
				assertThat(suggested.find()).as(line).isTrue();
				// The flush interval plus ten round trips of at least 40 ms.
				assertThat(Integer.parseInt(suggested.group(1))).isGreaterThanOrEqualTo(410);
				timeout[0] = suggested.group(1) + "ms";
			});
			// The timeout the warning asks for satisfies it, though the round trip measured
			// again will differ a little.
			runner(far).withPropertyValues("ratelimit.redis.timeout=" + timeout[0]).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(count(output)).isOne();
			});
		}
	}

	@Test
	void startupWhenTimeoutCoversFarRedisThenNoW017(CapturedOutput output) throws Exception {
		try (DelayingTcpProxy far = DelayingTcpProxy.start(host(), port(), Duration.ofMillis(20))) {
			runner(far).withPropertyValues("ratelimit.redis.timeout=1s").run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(count(output)).isZero();
			});
		}
	}

	@Test
	void startupWhenRedisIsNearThenDefaultTimeoutGetsNoW017(CapturedOutput output) throws Exception {
		try (DelayingTcpProxy near = DelayingTcpProxy.start(host(), port(), Duration.ZERO)) {
			runner(near).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(count(output)).isZero();
			});
		}
	}

	@Test
	void startupWhenRedisAnswersSlowerThanTheTimeoutThenW017SaysSo(CapturedOutput output) throws Exception {
		// 120 ms a round trip against a 100 ms timeout: connecting runs out of time, or, if a
		// connection opens after all, the decisions do.
		try (DelayingTcpProxy far = DelayingTcpProxy.start(host(), port(), Duration.ofMillis(60))) {
			runner(far).run((context) -> {
				assertThat(context).as("startup never fails for Redis").hasNotFailed();
				assertThat(count(output)).isOne();
				assertThat(line(output)).contains("within ratelimit.redis.timeout=100ms", "ran out of time",
						"ratelimit.redis.failure-mode");
			});
		}
	}

	@Test
	void startupWhenRedisIsDownThenNoW017(CapturedOutput output) throws Exception {
		DelayingTcpProxy gone = DelayingTcpProxy.start(host(), port(), Duration.ZERO);
		gone.close();
		runner(gone).run((context) -> {
			assertThat(context).hasNotFailed();
			// Redis down is the outage warning's to report, not a timeout to change.
			assertThat(count(output)).isZero();
		});
	}

	@Test
	void startupWhenRedisRejectsTheCredentialsThenItGivesUpAtOnceWithoutW017(CapturedOutput output)
			throws Exception {
		try (DelayingTcpProxy near = DelayingTcpProxy.start(host(), port(), Duration.ZERO)) {
			// A user that does not exist: WRONGPASS from any Redis of version 6 or later.
			String url = "redis://nobody-" + redis.prefix().replace(":", "") + ":wrong@127.0.0.1:" + near.port();
			runner(near).withPropertyValues("spring.data.redis.url=" + url).run((context) -> {
				assertThat(context).hasNotFailed();
				// An answer of Redis that trying again cannot change: not one attempt after
				// another for the whole warm-up budget (the buckets' store and the permits').
				assertThat(near.connections()).isLessThanOrEqualTo(2);
				assertThat(count(output)).isZero();
			});
		}
	}

	@Test
	void startupWhenRedisFailsEachConnectionFastThenItSpacesItsAttempts() throws Exception {
		// A server at its client limit answers every connection with an error, at once.
		AtomicInteger connections = new AtomicInteger();
		try (ServerSocket full = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			Thread server = new Thread(() -> {
				while (!full.isClosed()) {
					try (Socket socket = full.accept()) {
						connections.incrementAndGet();
						socket.getOutputStream()
							.write("-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII));
					}
					catch (IOException ex) {
						// Closed by the test.
					}
				}
			}, "full-redis");
			server.setDaemon(true);
			server.start();
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + full.getLocalPort(),
						"ratelimit.redis.key-prefix=" + redis.prefix(),
						"ratelimit.key-secret=0123456789abcdef0123456789abcdef")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					// The 3 s warm-up budget, an attempt every 100 ms at most (and the
					// permits' store's one): not one attempt after another as fast as the
					// server answers.
					assertThat(connections.get()).isBetween(1, 40);
				});
		}
	}

	private static ApplicationContextRunner runner(DelayingTcpProxy proxy) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + proxy.redisUrl(),
					"ratelimit.redis.key-prefix=" + redis.prefix(),
					"ratelimit.key-secret=0123456789abcdef0123456789abcdef");
	}

	private static String host() {
		return URI.create(redis.url()).getHost();
	}

	private static int port() {
		return URI.create(redis.url()).getPort();
	}

	private static long count(CapturedOutput output) {
		return output.getAll().lines().filter((line) -> line.contains(CODE)).count();
	}

	private static String line(CapturedOutput output) {
		return output.getAll().lines().filter((line) -> line.contains(CODE)).findFirst().orElseThrow();
	}

}
