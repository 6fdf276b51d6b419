package io.ratelimit.core;

import java.math.BigDecimal;

import io.ratelimit.core.bucket.BucketLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The items of the {@code RateLimit-Policy} and {@code RateLimit} fields: a quota's name is
 * an RFC 9651 sf-string whatever characters the template it comes from has.
 */
class QuotaTest {

	private static final BucketLimits TEN_PER_SECOND = BucketLimits.of(BigDecimal.TEN, BigDecimal.valueOf(2), 1);

	@Test
	void itemsWhenPlainNameThenQuotedAsIs() {
		Quota quota = new Quota("GET /api/products/*", TEN_PER_SECOND, 19, 1, false);

		assertThat(quota.policyItem()).isEqualTo("\"GET /api/products/*\";q=20;w=2");
		assertThat(quota.rateLimitItem()).isEqualTo("\"GET /api/products/*\";r=19;t=1");
	}

	@Test
	void itemsWhenNameHasQuoteBackslashOrNonPrintableThenEscapedOrReplaced() {
		Quota quota = new Quota("GET /a\"b\\c\u0001d\u00e9", TEN_PER_SECOND, 0, 3, true);

		assertThat(quota.policyItem()).isEqualTo("\"GET /a\\\"b\\\\c?d?\";q=20;w=2");
		assertThat(quota.rateLimitItem()).isEqualTo("\"GET /a\\\"b\\\\c?d?\";r=0;t=3");
	}

}
