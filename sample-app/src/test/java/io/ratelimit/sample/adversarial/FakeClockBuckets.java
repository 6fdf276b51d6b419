package io.ratelimit.sample.adversarial;

import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.bucket.LocalBucketStore;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Replaces the sample's bucket store with the same local store (100,000 buckets, the
 * default) on a {@link FakeClock}, so tests over real HTTP count admitted requests exactly
 * and simulate minutes of an attack in seconds. Everything else is the sample as shipped.
 */
@TestConfiguration(proxyBeanMethods = false)
public class FakeClockBuckets {

	@Bean
	FakeClock fakeClock() {
		return new FakeClock();
	}

	@Bean
	BucketStore rateLimitBucketStore(FakeClock clock) {
		return LocalBucketStore.create(100_000, clock);
	}

}
