package io.ratelimit.client.experiment;

import java.util.Map;

import io.ratelimit.client.experiment.PacingExperiment.Row;
import io.ratelimit.client.experiment.PacingExperiment.Scenario;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reduced experiment: 800 requests, both scenarios, three seeds, against this project's
 * limiter on a virtual clock. The full tables ({@code docs/client.md}) come from
 * {@link PacingExperiment#main}.
 */
class PacingExperimentTest {

	private static final int REQUESTS = 800;

	private static final int SEEDS = 3;

	static Scenario[] scenarios() {
		return new Scenario[] { Scenario.FEW_HEAVY, Scenario.MANY_LIGHT };
	}

	@ParameterizedTest
	@MethodSource("scenarios")
	void adaptiveStrategiesWhenQuotaSharedThenFarFewerRefusalsThanBackoff(Scenario scenario) {
		Map<Strategies, Row> rows = PacingExperiment.run(scenario, REQUESTS, SEEDS);
		System.out.print(PacingExperiment.table(scenario, REQUESTS, rows));
		double backoff = rows.get(Strategies.UB).refusals().mean();

		assertThat(backoff).as("UB's refusals").isGreaterThan(1000);
		assertThat(rows.get(Strategies.ATB).refusals().mean()).as("ATB's refusals").isLessThan(backoff / 5);
		assertThat(rows.get(Strategies.AATB).refusals().mean()).as("AATB's refusals").isLessThan(backoff / 5);
	}

	@ParameterizedTest
	@MethodSource("scenarios")
	void headerAwareWhenQuotaSharedThenNinetyFivePercentFewerRefusalsAtMostTenPercentLonger(Scenario scenario) {
		Map<Strategies, Row> rows = PacingExperiment.run(scenario, REQUESTS, SEEDS);
		Row backoff = rows.get(Strategies.UB);
		Row headerAware = rows.get(Strategies.HEADER_AWARE);

		assertThat(headerAware.refusals().mean()).as("header-aware refusals")
			.isLessThanOrEqualTo(0.05 * backoff.refusals().mean());
		assertThat(headerAware.duration().mean()).as("header-aware total duration")
			.isLessThanOrEqualTo(1.10 * backoff.duration().mean());
	}

}
