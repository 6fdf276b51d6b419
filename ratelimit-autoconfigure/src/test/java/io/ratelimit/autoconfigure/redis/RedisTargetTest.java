package io.ratelimit.autoconfigure.redis;

import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * How Spring Boot's Redis connection details, from the {@code spring.data.redis.*}
 * properties or from a bean of the application's own, become the limiter's Redis target:
 * the same server, the same TLS decision as Spring Boot's own Lettuce client. (The real
 * servers of each topology are covered by the topology tests.)
 */
class RedisTargetTest {

	private static final SslBundle BUNDLE = SslBundle.systemDefault();

	// Lazy, so that Spring Data Redis's own connection factory is never built: only its
	// connection details are read.
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
		.withBean(SslBundles.class, () -> new DefaultSslBundleRegistry("redis", BUNDLE));

	@Test
	void ofWhenHostAndPortThenStandalone() {
		RedisTarget target = target("spring.data.redis.host=redis", "spring.data.redis.port=6380",
				"spring.data.redis.database=3", "spring.data.redis.password=secret");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.STANDALONE);
		RedisURI uri = target.uris().get(0);
		assertThat(uri.getHost()).isEqualTo("redis");
		assertThat(uri.getPort()).isEqualTo(6380);
		assertThat(uri.getDatabase()).isEqualTo(3);
		assertThat(uri.isSsl()).isFalse();
		assertThat(credentials(uri).hasUsername()).isFalse();
		assertThat(credentials(uri).getPassword()).containsExactly("secret".toCharArray());
	}

	@Test
	void ofWhenSecureUrlThenStandaloneOverTlsWithItsCredentials() {
		RedisTarget target = target("spring.data.redis.url=rediss://ratelimit:secret@redis:6380/2");

		RedisURI uri = target.uris().get(0);
		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.STANDALONE);
		assertThat(uri.isSsl()).isTrue();
		assertThat(uri.getDatabase()).isEqualTo(2);
		assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit");
		assertThat(target.sslBundle()).isNull();
	}

	@Test
	void ofWhenSslEnabledWithBundleThenTlsWithTheBundle() {
		RedisTarget target = target("spring.data.redis.host=redis", "spring.data.redis.ssl.enabled=true",
				"spring.data.redis.ssl.bundle=redis");

		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.sslBundle()).isSameAs(BUNDLE);
	}

	@Test
	void ofWhenOnlyBundleNamedThenStandaloneOverTlsWithTheBundle() {
		RedisTarget target = target("spring.data.redis.host=redis", "spring.data.redis.ssl.bundle=redis");

		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.sslBundle()).isSameAs(BUNDLE);
	}

	@Test
	void ofWhenOnlyBundleNamedThenSentinelAndPrimaryOverTlsWithTheBundle() {
		RedisTarget target = target("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379,s2:26380", "spring.data.redis.ssl.bundle=redis");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.SENTINEL);
		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.uris().get(0).getSentinels()).allSatisfy((sentinel) -> assertThat(sentinel.isSsl()).isTrue());
		assertThat(target.sslBundle()).isSameAs(BUNDLE);
	}

	@Test
	void ofWhenOnlyBundleNamedThenClusterNodesOverTlsWithTheBundle() {
		RedisTarget target = target("spring.data.redis.cluster.nodes=n1:7000,n2:7001",
				"spring.data.redis.ssl.bundle=redis");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.CLUSTER);
		assertThat(target.uris()).allSatisfy((uri) -> assertThat(uri.isSsl()).isTrue());
		assertThat(target.sslBundle()).isSameAs(BUNDLE);
	}

	@Test
	void ofWhenBundleNamedButSslDisabledThenPlaintextAsSpringBoot() {
		RedisTarget target = target("spring.data.redis.host=redis", "spring.data.redis.ssl.enabled=false",
				"spring.data.redis.ssl.bundle=redis");

		assertThat(target.uris().get(0).isSsl()).isFalse();
		assertThat(target.sslBundle()).isNull();
	}

	@Test
	void ofWhenSentinelThenOneUriNamingTheSentinelsWithTheirOwnCredentials() {
		RedisTarget target = target("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379,s2:26380", "spring.data.redis.sentinel.username=watcher",
				"spring.data.redis.sentinel.password=sentinel-secret", "spring.data.redis.username=ratelimit",
				"spring.data.redis.password=secret", "spring.data.redis.database=1",
				"spring.data.redis.ssl.enabled=true");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.SENTINEL);
		RedisURI uri = target.uris().get(0);
		assertThat(uri.getSentinelMasterId()).isEqualTo("primary");
		assertThat(uri.getDatabase()).isEqualTo(1);
		assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit");
		assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
			.containsExactly(tuple("s1", 26379), tuple("s2", 26380));
		assertThat(uri.getSentinels()).allSatisfy((sentinel) -> {
			assertThat(credentials(sentinel).getUsername()).isEqualTo("watcher");
			assertThat(sentinel.isSsl()).as("TLS to the sentinels as to the data nodes").isTrue();
		});
		assertThat(uri.isSsl()).isTrue();
	}

	@Test
	void ofWhenClusterThenOneUriPerNodeWithTheCredentials() {
		RedisTarget target = target("spring.data.redis.cluster.nodes=n1:7000,n2:7001,n3:7002",
				"spring.data.redis.cluster.max-redirects=3", "spring.data.redis.username=ratelimit",
				"spring.data.redis.password=secret");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.CLUSTER);
		assertThat(target.uris()).extracting(RedisURI::getHost).containsExactly("n1", "n2", "n3");
		assertThat(target.uris()).allSatisfy((uri) -> assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit"));
		assertThat(target.maxRedirects()).isEqualTo(3);
	}

	@Test
	void ofWhenSentinelAndClusterThenSentinelFirstAsSpringBoot() {
		RedisTarget target = target("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379", "spring.data.redis.cluster.nodes=n1:7000");

		assertThat(target.topology()).isEqualTo(RedisTarget.Topology.SENTINEL);
	}

	@Test
	void ofWhenConnectionDetailsOfTheApplicationsOwnThenTheyWinOverTheProperties() {
		// As a service connection (Testcontainers, Docker Compose) replaces the properties.
		AtomicReference<RedisTarget> target = new AtomicReference<>();
		this.runner.withPropertyValues("spring.data.redis.host=ignored")
			.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of("container", 32768, 4);
				}

				@Override
				public SslBundle getSslBundle() {
					return BUNDLE;
				}

			})
			.run((context) -> target.set(RedisTarget.of(context.getBeanFactory(), context.getEnvironment())));

		RedisURI uri = target.get().uris().get(0);
		assertThat(uri.getHost()).isEqualTo("container");
		assertThat(uri.getPort()).isEqualTo(32768);
		assertThat(uri.getDatabase()).isEqualTo(4);
		assertThat(uri.isSsl()).isTrue();
		assertThat(target.get().sslBundle()).isSameAs(BUNDLE);
	}

	@Test
	void ofWhenMasterReplicaThenRefusedNamingTheProperty() {
		assertThatExceptionOfType(InvalidRateLimitPropertyException.class)
			.isThrownBy(() -> target("spring.data.redis.masterreplica.nodes=r1:6379,r2:6379"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("spring.data.redis.masterreplica.nodes"))
			.withMessageContaining("spring.data.redis.sentinel");
	}



	@Test
	void ofWhenBundleUnknownThenStartupFailsRatherThanPlaintext() {
		// Spring Boot's own Redis configuration refuses it first, as it refuses malformed
		// node lists and a Sentinel without a primary: the limiter never connects elsewhere.
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> target("spring.data.redis.host=redis", "spring.data.redis.ssl.bundle=other"))
			.withMessageContaining("SSL bundle name 'other' cannot be found");
	}

	private RedisTarget target(String... properties) {
		AtomicReference<RedisTarget> target = new AtomicReference<>();
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		this.runner.withPropertyValues(properties).run((context) -> {
			if (context.getStartupFailure() != null) {
				failure.set(new IllegalStateException(context.getStartupFailure()));
				return;
			}
			try {
				target.set(RedisTarget.of(context.getBeanFactory(), context.getEnvironment()));
			}
			catch (RuntimeException ex) {
				failure.set(ex);
			}
		});
		if (failure.get() != null) {
			throw failure.get();
		}
		return target.get();
	}

	private static RedisCredentials credentials(RedisURI uri) {
		return uri.getCredentialsProvider().resolveCredentials().block();
	}

}
