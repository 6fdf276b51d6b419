package io.ratelimit.autoconfigure.redis;

import java.math.BigDecimal;
import java.time.Duration;

import io.ratelimit.autoconfigure.testsupport.RedisTlsServer;
import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Global buckets over TLS, on a server of this class's own that accepts TLS only, with a
 * certificate made for the test: the trust comes from an SSL bundle named by
 * {@code spring.data.redis.ssl.bundle}, read through Spring Boot's Redis connection details;
 * without the bundle the JVM does not trust the server and the failure mode decides, at once.
 */
class RedisTlsTest {

	/** 20 tokens, one more every 10 seconds: nothing refills while a test runs. */
	private static final BucketLimits LIMITS = BucketLimits.of(new BigDecimal("0.1"), BigDecimal.valueOf(200), 1);

	private static RedisTlsServer server;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class))
		.withPropertyValues("ratelimit.key-secret=0123456789abcdef0123456789abcdef");

	@BeforeAll
	static void startServer() throws Exception {
		server = RedisTlsServer.start();
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
	}

	@Test
	void runWhenSslBundleTrustsServerThenBucketsOverTls() {
		this.runner.withPropertyValues(tls())
			.run((context) -> assertDecidedInRedis(context.getBean(RedisGlobalBuckets.class)));
	}



	@Test
	void runWhenOnlyBundleNamedThenBucketsOverTlsAsSpringBootDoes() {
		// ssl.enabled unset means "enabled if a bundle is named" to Spring Boot.
		this.runner.withPropertyValues(bundleOnly())
			.run((context) -> assertDecidedInRedis(context.getBean(RedisGlobalBuckets.class)));
	}


	@Test
	void runWhenServerNotTrustedThenStartsAtOnceAndFailureModeDecides() {
		long started = System.nanoTime();
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.tlsPort(),
					"spring.data.redis.ssl.enabled=true", "ratelimit.redis.failure-mode=closed")
			.run((context) -> {
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no wait for a handshake that fails")
					.isLessThan(Duration.ofSeconds(3));
				FailoverBucketStore store = context.getBean(RedisGlobalBuckets.class).failover();
				assertThat(store.tryConsume(new BucketKey(2, System.nanoTime()), LIMITS, 1).consumed()).isFalse();
				assertThat(store.fallbacks()).isOne();
				assertThat(store.lastFailure()).isNotNull();
			});
	}

	private static void assertDecidedInRedis(RedisGlobalBuckets buckets) {
		BucketKey key = new BucketKey(1, System.nanoTime());
		for (int i = 0; i < 20; i++) {
			assertThat(buckets.failover().tryConsume(key, LIMITS, 1).consumed()).isTrue();
		}
		assertThat(buckets.failover().tryConsume(key, LIMITS, 1).consumed()).isFalse();
		assertThat(buckets.failover().fallbacks()).isZero();
		assertThat(server.process().cli("EXISTS", new String(buckets.redis().redisKey(key)))).isEqualTo("1");
	}

	private static String[] bundleOnly() {
		return new String[] { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.tlsPort(),
				"spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + server.caCertificate() };
	}

	private static String[] tls() {
		return new String[] { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.tlsPort(),
				"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + server.caCertificate() };
	}

}
