package io.ratelimit.client.experiment;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.ratelimit.client.Feedback;
import io.ratelimit.core.Decision;
import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.TestRequest;
import io.ratelimit.core.bucket.LocalBucketStore;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;

/**
 * The study's server: a token bucket of 100 refilled at 80 per minute in front of a trivial
 * service, here this project's own limiter (its default policy at 1.3333334 requests per
 * second with a burst factor of 75), on the emulation's virtual clock. Every client calls
 * from one address, so all of them draw on one bucket, as in the study.
 */
final class EmulatedServer {

	static final BigDecimal RATE = new BigDecimal("1.3333334");

	static final BigDecimal BURST_FACTOR = new BigDecimal("75");

	private static final EndpointTemplate SEARCH = EndpointTemplate.of("GET", "/api/search");

	private final RateLimiter limiter;

	private final FakeTimeSource time;

	EmulatedServer(FakeTimeSource time) {
		this.time = time;
		ReloadablePolicies policies = new ReloadablePolicies(List::of, PolicySettings.of(RATE, RATE, BURST_FACTOR),
				time);
		policies.reload();
		this.limiter = RateLimiter.builder((request) -> SEARCH, policies)
			.timeSource(time)
			.buckets(LocalBucketStore.create(1000, time))
			.build();
	}

	/** Decides one request now and answers as the HTTP filter would. */
	Feedback handle() {
		Decision decision = this.limiter.evaluate(TestRequest.get("/api/search"));
		Map<String, String> headers = new HashMap<>();
		decision.forEachHeader(headers::put);
		return Feedback.of(decision.isRejected() ? 429 : 200, headers::get, this.time.currentTimeMillis());
	}

}
