package io.ratelimit.core.bucket;

import java.math.BigDecimal;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BucketLimitsTest {

	@Test
	void ofWhenBurstFactorTwoThenCapacityTwiceTheRateAndWindowOfItsRefill() {
		BucketLimits limits = BucketLimits.of(BigDecimal.TEN, BigDecimal.valueOf(2), 1);

		assertThat(limits.quota()).isEqualTo(20);
		assertThat(limits.windowSeconds()).isEqualTo(2);
		assertThat(limits.refillPeriodNanos()).isEqualTo(2_000_000_000L);
	}

	@Test
	void ofWhenBurstBelowOneRequestThenCapacityIsOneRequest() {
		BucketLimits fivePerMinute = BucketLimits.of(new BigDecimal("0.0833333"), BigDecimal.valueOf(2), 1);

		assertThat(fivePerMinute.quota()).isEqualTo(1);
		assertThat(fivePerMinute.windowSeconds()).isEqualTo(13); // 12.0000048 s, rounded up
	}

	@Test
	void withCapacityOfAtLeastWhenWeightAboveCapacityThenRaisedAtSameRate() {
		BucketLimits limits = BucketLimits.of(BigDecimal.ONE, BigDecimal.ONE, 1);

		BucketLimits raised = limits.withCapacityOfAtLeast(10);

		assertThat(raised.quota()).isEqualTo(10);
		assertThat(raised.rps()).isEqualByComparingTo("1");
		assertThat(raised.windowSeconds()).isEqualTo(10);
		assertThat(limits.withCapacityOfAtLeast(1)).isSameAs(limits);
	}

	@Test
	void nanosUntilNextTokenWhenFullThenZeroElseTimeToNextWholeToken() {
		BucketLimits limits = BucketLimits.of(BigDecimal.TEN, BigDecimal.valueOf(2), 1);

		assertThat(limits.nanosUntilNextToken(20_000)).isZero();
		assertThat(limits.nanosUntilNextToken(7_350)).isEqualTo(65_000_000L);
		assertThat(limits.nanosUntilNextToken(7_000)).isEqualTo(100_000_000L);
	}

	@Test
	void ofWhenArgumentsInvalidThenMessagesNameThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> BucketLimits.of(BigDecimal.ZERO, BigDecimal.ONE, 1))
			.withMessage("The rate must be positive, but was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BucketLimits.of(BigDecimal.ONE, new BigDecimal("0.9"), 1))
			.withMessage("The burst factor must be at least 1, but was 0.9");
	}

	@Test
	void perWindowWhenCountPerHourThenQuotaIsTheCountAndWindowTheHour() {
		BucketLimits hourly = BucketLimits.perWindow(5000, Duration.ofHours(1), 5000);

		assertThat(hourly.quota()).isEqualTo(5000);
		assertThat(hourly.windowSeconds()).isEqualTo(3600);
		assertThat(hourly.refillPeriodNanos()).isEqualTo(Duration.ofHours(1).toNanos());
		assertThat(hourly.nanosUntilNextToken(4999_000)).isEqualTo(720_000_000L);
	}

	@Test
	void perWindowWhenBurstAboveCountThenCapacityIsTheBurstAtTheSameRate() {
		BucketLimits perSecond = BucketLimits.perWindow(20, Duration.ofSeconds(1), 40);

		assertThat(perSecond.quota()).isEqualTo(40);
		assertThat(perSecond.windowSeconds()).isEqualTo(2);
		assertThat(perSecond.rps()).isEqualByComparingTo("20");
	}

	@Test
	void perWindowWhenArgumentsInvalidThenMessagesNameThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> BucketLimits.perWindow(0, Duration.ofHours(1), 1))
			.withMessage("The count must be positive, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> BucketLimits.perWindow(1, Duration.ZERO, 1))
			.withMessage("The window must be positive, but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> BucketLimits.perWindow(1, Duration.ofHours(1), 0))
			.withMessage("The burst must be at least 1 token, but was 0");
	}

}
