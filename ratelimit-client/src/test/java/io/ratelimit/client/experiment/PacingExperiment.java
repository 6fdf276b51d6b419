package io.ratelimit.client.experiment;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The experiment of the CCNC 2026 study, on this project's own server-side limiter: for each
 * scenario, size and strategy, the mean and standard deviation over seeds of the 429s, the
 * total duration and the mean service time.
 */
final class PacingExperiment {

	/**
	 * A workload shape of the study.
	 * @param name how the tables name it
	 * @param clients the number of clients
	 * @param maximumPerClient the most requests one client sends
	 */
	record Scenario(String name, int clients, int maximumPerClient) {

		static final Scenario FEW_HEAVY = new Scenario("5 clients", 5, 200);

		static final Scenario MANY_LIGHT = new Scenario("100 clients", 100, 10);

	}

	/**
	 * Mean and standard deviation of one metric over the seeds.
	 * @param mean the mean
	 * @param sd the sample standard deviation
	 */
	record Summary(double mean, double sd) {

		static Summary of(List<Double> values) {
			double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
			double squares = values.stream().mapToDouble((v) -> (v - mean) * (v - mean)).sum();
			return new Summary(mean, (values.size() > 1) ? Math.sqrt(squares / (values.size() - 1)) : 0);
		}

		String format(String pattern) {
			return String.format(Locale.ROOT, pattern + " ± " + pattern, this.mean, this.sd);
		}

	}

	/**
	 * One cell of the tables.
	 * @param refusals the 429s
	 * @param duration the total duration in seconds
	 * @param service the mean service time in seconds
	 */
	record Row(Summary refusals, Summary duration, Summary service) {
	}

	static Map<Strategies, Row> run(Scenario scenario, int totalRequests, int seeds) {
		Map<Strategies, Row> rows = new EnumMap<>(Strategies.class);
		for (Strategies strategy : Strategies.values()) {
			List<Double> refusals = new ArrayList<>();
			List<Double> durations = new ArrayList<>();
			List<Double> services = new ArrayList<>();
			for (int seed = 1; seed <= seeds; seed++) {
				Trace trace = Trace.generate(scenario.clients(), scenario.maximumPerClient(), totalRequests, seed);
				Emulation.Result result = Emulation.run(trace, strategy.factory(), seed * 7919L);
				if (result.served() != trace.totalRequests()) {
					throw new IllegalStateException(strategy + " served " + result.served() + " of "
							+ trace.totalRequests() + " requests");
				}
				refusals.add((double) result.refusals());
				durations.add(result.durationSeconds());
				services.add(result.meanServiceSeconds());
			}
			rows.put(strategy, new Row(Summary.of(refusals), Summary.of(durations), Summary.of(services)));
		}
		return rows;
	}

	static String table(Scenario scenario, int totalRequests, Map<Strategies, Row> rows) {
		Row baseline = rows.get(Strategies.UB);
		StringBuilder table = new StringBuilder();
		table.append(String.format(Locale.ROOT, "%n%s, %d requests%n%n", scenario.name(), totalRequests));
		table.append("| strategy | 429s | vs UB | total duration (s) | vs UB | mean service time (s) |\n");
		table.append("|---|---|---|---|---|---|\n");
		rows.forEach((strategy, row) -> table.append(String.format(Locale.ROOT, "| %s | %s | %+.1f %% | %s | %+.1f %% | %s |%n",
				strategy, row.refusals().format("%.0f"), change(row.refusals(), baseline.refusals()),
				row.duration().format("%.1f"), change(row.duration(), baseline.duration()),
				row.service().format("%.1f"))));
		return table.toString();
	}

	private static double change(Summary value, Summary baseline) {
		return (baseline.mean() == 0) ? 0 : (value.mean() / baseline.mean() - 1) * 100;
	}

	public static void main(String[] args) {
		int seeds = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		for (Scenario scenario : List.of(Scenario.FEW_HEAVY, Scenario.MANY_LIGHT)) {
			for (int total : new int[] { 400, 600, 800 }) {
				System.out.print(table(scenario, total, run(scenario, total, seeds)));
			}
		}
	}

}
