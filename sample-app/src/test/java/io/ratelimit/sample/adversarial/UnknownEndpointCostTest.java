package io.ratelimit.sample.adversarial;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.sample.SampleApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A6, the cost of fake-endpoint flooding: three instances of the sample in this JVM, on
 * one PostgreSQL database, answer random paths: with the limiter charging them to
 * {@code UNKNOWN} (the default), with {@code ratelimit.unknown-endpoint=reject}, and with
 * {@code ratelimit.enabled=false} (the application's own 404). Batches alternate between
 * the instances so that noise on the shared machine hits all three alike; the medians and
 * their ratios are recorded, not asserted. Asserted: in reject mode a random path gets 404
 * without a bearer token being verified and without a bucket.
 */
class UnknownEndpointCostTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final Map<String, ConfigurableApplicationContext> apps = new LinkedHashMap<>();

	@BeforeAll
	static void start() {
		apps.put("disabled", start("ratelimit.enabled=false"));
		apps.put("limit", start("ratelimit.unknown-endpoint=limit"));
		apps.put("reject", start("ratelimit.unknown-endpoint=reject"));
	}

	private static ConfigurableApplicationContext start(String mode) {
		List<String> properties = new ArrayList<>(
				List.of("server.port=0", "spring.main.banner-mode=off", "logging.level.root=WARN", mode));
		database.register((name, value) -> properties.add(name + "=" + value.get()));
		return new SpringApplicationBuilder(SampleApplication.class, CountingJwtDecoder.class)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterAll
	static void stop() {
		apps.values().forEach(ConfigurableApplicationContext::close);
	}

	private static AttackClient client(String app) {
		return new AttackClient(((WebServerApplicationContext) apps.get(app)).getWebServer().getPort());
	}

	@Test
	void requestWhenRandomPathAndRejectModeThenNotFoundBeforeIdentityOrBucket() {
		ConfigurableApplicationContext reject = apps.get("reject");
		AttackClient http = client("reject");
		AtomicInteger decoded = reject.getBean(CountingJwtDecoder.class).decoded;
		BucketStore buckets = reject.getBean(BucketStore.class);
		long bucketsBefore = buckets.stats().entries();
		int decodedBefore = decoded.get();

		for (int i = 0; i < 50; i++) {
			String token = token(reject, "mallory-" + i);
			assertThat(http.get("/no-such/" + i, "Authorization", "Bearer " + token, "X-API-Key", "demo-" + i)
				.statusCode()).isEqualTo(404);
		}
		assertThat(decoded.get()).isEqualTo(decodedBefore);
		assertThat(buckets.stats().entries()).isEqualTo(bucketsBefore);

		// The control: a served endpoint with a token does verify it and, with a second
		// request before the first is refilled (10 rps: 0.1 s), does take a bucket. A pair
		// slower than that on a loaded machine finds the bucket full again and takes none,
		// which proves nothing either way, so pairs are sent until one is quick enough.
		String mallory = "Bearer " + token(reject, "mallory");
		assertThat(http.get("/api/products/1", "Authorization", mallory).statusCode()).isEqualTo(200);
		assertThat(decoded.get()).isEqualTo(decodedBefore + 1);
		boolean quickPair = false;
		for (int pair = 0; pair < 20 && !quickPair; pair++) {
			String bearer = "Bearer " + token(reject, "mallory-" + pair);
			long entries = buckets.stats().entries();
			long start = System.nanoTime();
			assertThat(http.get("/api/products/1", "Authorization", bearer).statusCode()).isEqualTo(200);
			assertThat(http.get("/api/products/1", "Authorization", bearer).statusCode()).isEqualTo(200);
			quickPair = System.nanoTime() - start < 100_000_000L;
			if (quickPair) {
				assertThat(buckets.stats().entries()).isEqualTo(entries + 1);
			}
		}
		assertThat(quickPair).as("a pair of requests within 0.1 s, in 20 tries").isTrue();
	}

	@Test
	void requestWhenRandomPathsThenMedianLatencyRecordedAgainstTheApplicationsOwn404() {
		int rounds = Figures.fullRun() ? 20 : 6;
		int batch = 200;
		Map<String, List<Long>> nanos = new LinkedHashMap<>();
		Map<String, Map<Integer, Integer>> statuses = new LinkedHashMap<>();
		SplittableRandom random = new SplittableRandom(3);
		List<String> order = new ArrayList<>(apps.keySet());
		for (int round = -1; round < rounds; round++) { // round -1 warms up
			java.util.Collections.rotate(order, 1);
			for (String app : order) {
				AttackClient http = client(app);
				for (int i = 0; i < batch; i++) {
					String path = "/" + Long.toHexString(random.nextLong()) + "/" + Long.toHexString(random.nextLong());
					long start = System.nanoTime();
					int status = http.get(path).statusCode();
					long elapsed = System.nanoTime() - start;
					if (round >= 0) {
						nanos.computeIfAbsent(app, (key) -> new ArrayList<>()).add(elapsed);
						statuses.computeIfAbsent(app, (key) -> new LinkedHashMap<>()).merge(status, 1, Integer::sum);
					}
				}
			}
		}

		Map<String, Double> medians = new LinkedHashMap<>();
		nanos.forEach((app, samples) -> medians.put(app,
				Figures.percentileMicros(samples.stream().mapToLong(Long::longValue).toArray(), 50)));
		double baseline = medians.get("disabled");
		Figures.record("A6 random-path latency", "%d requests per instance, alternating batches of %d; median us "
				+ "(ratio to limiter disabled): disabled %.0f, limit %.0f (%.2f), reject %.0f (%.2f); statuses %s",
				rounds * batch, batch, baseline, medians.get("limit"), medians.get("limit") / baseline,
				medians.get("reject"), medians.get("reject") / baseline, statuses);
		assertThat(statuses.get("disabled")).containsOnlyKeys(404);
		assertThat(statuses.get("reject")).containsOnlyKeys(404);
		assertThat(statuses.get("limit")).containsKey(429);
	}

	private static String token(ConfigurableApplicationContext app, String subject) {
		JwtClaimsSet claims = JwtClaimsSet.builder()
			.subject(subject)
			.expiresAt(Instant.now().plusSeconds(600))
			.build();
		return app.getBean(JwtEncoder.class)
			.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
			.getTokenValue();
	}

	/**
	 * Counts the bearer tokens the application's {@link JwtDecoder} verifies.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class CountingJwtDecoder {

		final AtomicInteger decoded = new AtomicInteger();

		@Bean
		static BeanPostProcessor countingJwtDecoderPostProcessor(
				org.springframework.beans.factory.ObjectProvider<CountingJwtDecoder> counter) {
			return new BeanPostProcessor() {
				@Override
				public Object postProcessAfterInitialization(Object bean, String name) {
					if (bean instanceof JwtDecoder decoder) {
						return (JwtDecoder) (token) -> {
							counter.getObject().decoded.incrementAndGet();
							return decoder.decode(token);
						};
					}
					return bean;
				}
			};
		}

	}

}
