package io.ratelimit.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.shed.Completion;
import io.ratelimit.core.shed.EndpointPriorities;
import io.ratelimit.core.shed.LoadShedder;
import io.ratelimit.core.shed.Permit;
import io.ratelimit.core.shed.Priority;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the load-shedding stage costs an admitted request: {@link LoadShedder#acquire} of a
 * {@code DEFAULT} endpoint under a limit far above the load, then
 * {@link Permit#release(Completion) release} as a latency sample (the Vegas update, under
 * the library's lock, and the no-load latency bookkeeping), on one thread and on two
 * ({@code acquireAndReleaseContended}, the in-flight count and the limit's lock shared).
 * The probe interval is an hour, so no probe pins the limit during a measurement.
 * <p>
 * Run with:
 * <pre>
 * ./mvnw -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar LoadSheddingBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(3)
@State(Scope.Benchmark)
public class LoadSheddingBenchmark {

	private static final EndpointTemplate ENDPOINT = EndpointTemplate.parse("GET /api/products/*");

	private LoadShedder shedder;

	@Setup
	public void setUp() {
		this.shedder = LoadShedder
			.builder(EndpointPriorities.of(Map.of(EndpointTemplate.parse("POST /api/payments"), Priority.CRITICAL)))
			.limits(1000, 1000, 1000)
			.probe(Duration.ofHours(1), 0.15, 25, Duration.ofSeconds(2))
			.build();
	}

	@Benchmark
	public Permit acquireAndRelease() {
		Permit permit = this.shedder.acquire(ENDPOINT);
		permit.release(Completion.SUCCESS);
		return permit;
	}

	@Benchmark
	@Threads(2)
	public Permit acquireAndReleaseContended() {
		Permit permit = this.shedder.acquire(ENDPOINT);
		permit.release(Completion.SUCCESS);
		return permit;
	}

}
