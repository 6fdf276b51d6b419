package io.ratelimit.autoconfigure.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.ratelimit.autoconfigure.InvalidRateLimitPropertyException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.ssl.SslBundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * How the {@code spring.data.redis.*} properties become the limiter's Redis target, read
 * without Spring Data Redis. (Spring Data Redis's connection details, and the real servers,
 * are covered by the topology tests.)
 */
class RedisUrisTest {

	@Test
	void ofWhenHostAndPortThenStandalone() {
		RedisUris.Target target = target("spring.data.redis.host=redis", "spring.data.redis.port=6380",
				"spring.data.redis.database=3", "spring.data.redis.password=secret");

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.STANDALONE);
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
		RedisUris.Target target = target("spring.data.redis.url=rediss://ratelimit:secret@redis:6380/2");

		RedisURI uri = target.uris().get(0);
		assertThat(target.topology()).isEqualTo(RedisUris.Topology.STANDALONE);
		assertThat(uri.isSsl()).isTrue();
		assertThat(uri.getDatabase()).isEqualTo(2);
		assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit");
		assertThat(target.sslBundle()).isNull();
	}

	@Test
	void ofWhenSslEnabledWithBundleThenTlsWithTheBundle() {
		SslBundle bundle = SslBundle.systemDefault();
		Map<String, SslBundle> bundles = Map.of("redis", bundle);

		RedisUris.Target target = RedisUris.of(settings("spring.data.redis.host=redis",
				"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis"), bundles::get);

		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.sslBundle()).isSameAs(bundle);
	}

	@Test
	void ofWhenOnlyBundleNamedThenStandaloneOverTlsWithTheBundle() {
		SslBundle bundle = SslBundle.systemDefault();

		RedisUris.Target target = RedisUris.of(settings("spring.data.redis.host=redis",
				"spring.data.redis.ssl.bundle=redis"), Map.of("redis", bundle)::get);

		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.sslBundle()).isSameAs(bundle);
	}

	@Test
	void ofWhenOnlyBundleNamedThenSentinelAndPrimaryOverTlsWithTheBundle() {
		SslBundle bundle = SslBundle.systemDefault();

		RedisUris.Target target = RedisUris.of(settings("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379,s2:26380", "spring.data.redis.ssl.bundle=redis"),
				Map.of("redis", bundle)::get);

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.SENTINEL);
		assertThat(target.uris().get(0).isSsl()).isTrue();
		assertThat(target.uris().get(0).getSentinels()).allSatisfy((sentinel) -> assertThat(sentinel.isSsl()).isTrue());
		assertThat(target.sslBundle()).isSameAs(bundle);
	}

	@Test
	void ofWhenOnlyBundleNamedThenClusterNodesOverTlsWithTheBundle() {
		SslBundle bundle = SslBundle.systemDefault();

		RedisUris.Target target = RedisUris.of(settings("spring.data.redis.cluster.nodes=n1:7000,n2:7001",
				"spring.data.redis.ssl.bundle=redis"), Map.of("redis", bundle)::get);

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.CLUSTER);
		assertThat(target.uris()).allSatisfy((uri) -> assertThat(uri.isSsl()).isTrue());
		assertThat(target.sslBundle()).isSameAs(bundle);
	}

	@Test
	void ofWhenBundleNamedButSslDisabledThenPlaintextAsSpringBoot() {
		RedisUris.Target target = target("spring.data.redis.host=redis", "spring.data.redis.ssl.enabled=false",
				"spring.data.redis.ssl.bundle=redis");

		assertThat(target.uris().get(0).isSsl()).isFalse();
		assertThat(target.sslBundle()).isNull();
	}

	@Test
	void ofWhenSentinelThenOneUriNamingTheSentinelsWithTheirOwnCredentials() {
		RedisUris.Target target = target("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379,s2:26380", "spring.data.redis.sentinel.username=watcher",
				"spring.data.redis.sentinel.password=sentinel-secret", "spring.data.redis.username=ratelimit",
				"spring.data.redis.password=secret", "spring.data.redis.database=1",
				"spring.data.redis.ssl.enabled=true");

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.SENTINEL);
		RedisURI uri = target.uris().get(0);
		assertThat(uri.getSentinelMasterId()).isEqualTo("primary");
		assertThat(uri.getDatabase()).isEqualTo(1);
		assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit");
		assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
			.containsExactly(tuple("s1", 26379),
					tuple("s2", 26380));
		assertThat(uri.getSentinels()).allSatisfy((sentinel) -> {
			assertThat(credentials(sentinel).getUsername()).isEqualTo("watcher");
			assertThat(sentinel.isSsl()).as("TLS to the sentinels as to the data nodes").isTrue();
		});
		assertThat(uri.isSsl()).isTrue();
	}

	@Test
	void ofWhenClusterThenOneUriPerNodeWithTheCredentials() {
		RedisUris.Target target = target("spring.data.redis.cluster.nodes=n1:7000,n2:7001,n3:7002",
				"spring.data.redis.cluster.max-redirects=3", "spring.data.redis.username=ratelimit",
				"spring.data.redis.password=secret");

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.CLUSTER);
		assertThat(target.uris()).extracting(RedisURI::getHost).containsExactly("n1", "n2", "n3");
		assertThat(target.uris()).allSatisfy((uri) -> assertThat(credentials(uri).getUsername()).isEqualTo("ratelimit"));
		assertThat(target.maxRedirects()).isEqualTo(3);
	}

	@Test
	void ofWhenSentinelAndClusterThenSentinelFirstAsSpringBoot() {
		RedisUris.Target target = target("spring.data.redis.sentinel.master=primary",
				"spring.data.redis.sentinel.nodes=s1:26379", "spring.data.redis.cluster.nodes=n1:7000");

		assertThat(target.topology()).isEqualTo(RedisUris.Topology.SENTINEL);
	}

	@Test
	void ofWhenMasterReplicaThenRefusedNamingTheProperty() {
		assertThatExceptionOfType(InvalidRateLimitPropertyException.class)
			.isThrownBy(() -> target("spring.data.redis.masterreplica.nodes=r1:6379,r2:6379"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("spring.data.redis.masterreplica.nodes"))
			.withMessageContaining("spring.data.redis.sentinel");
	}

	@Test
	void ofWhenNodeNotHostAndPortThenRefusedNamingTheProperty() {
		assertThatExceptionOfType(InvalidRateLimitPropertyException.class)
			.isThrownBy(() -> target("spring.data.redis.cluster.nodes=n1:7000,n2"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("spring.data.redis.cluster.nodes"))
			.withMessageContaining("'n2' is not host:port");
	}

	@Test
	void ofWhenSentinelWithoutMasterThenRefusedNamingTheProperty() {
		assertThatExceptionOfType(InvalidRateLimitPropertyException.class)
			.isThrownBy(() -> target("spring.data.redis.sentinel.nodes=s1:26379"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("spring.data.redis.sentinel.master"));
	}

	private static RedisUris.Target target(String... properties) {
		return RedisUris.of(settings(properties), (name) -> {
			throw new AssertionError("No bundle expected, but " + name + " was asked for");
		});
	}

	private static RedisUris.Settings settings(String... properties) {
		Map<String, String> map = new LinkedHashMap<>();
		for (String property : properties) {
			int equals = property.indexOf('=');
			map.put(property.substring(0, equals), property.substring(equals + 1));
		}
		return new Binder(new MapConfigurationPropertySource(map)).bindOrCreate("spring.data.redis",
				RedisUris.Settings.class);
	}

	private static RedisCredentials credentials(RedisURI uri) {
		return uri.getCredentialsProvider().resolveCredentials().block();
	}

}
