package io.ratelimit.client.experiment;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Function;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;
import io.ratelimit.client.PacingClock;
import io.ratelimit.client.PacingStrategy;
import io.ratelimit.client.Target;
import io.ratelimit.core.FakeTimeSource;

/**
 * Runs a {@link Trace} through client strategies against the {@link EmulatedServer} on a
 * virtual clock: a discrete-event emulation in which minutes take milliseconds.
 *
 * <p>Each client keeps its requests in arrival order and sends the first one whenever its
 * strategy gives a permit, without waiting for earlier responses (the waiting line of a
 * {@code RequestPacer}); a refused request goes back to the front and is sent again. Each
 * exchange takes a fixed round trip, and the server decides at its midpoint.
 */
final class Emulation {

	static final long ROUND_TRIP_NANOS = Duration.ofMillis(50).toNanos();

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	private static final Target TARGET = new Target("api.example.com", "GET /api/search");

	private final FakeTimeSource time = new FakeTimeSource();

	private final long start = this.time.nanoTime();

	private final PacingClock clock = new PacingClock() {

		@Override
		public long nanoTime() {
			return Emulation.this.time.nanoTime();
		}

		@Override
		public long currentTimeMillis() {
			return Emulation.this.time.currentTimeMillis();
		}

	};

	private final EmulatedServer server = new EmulatedServer(this.time);

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private long sequence;

	private long refusals;

	private long served;

	private long lastServed;

	private double serviceSeconds;

	/**
	 * The outcome of one run.
	 * @param refusals the 429 responses
	 * @param durationSeconds from the first request generated to the last one served
	 * @param meanServiceSeconds from a request's first send to its success, on average
	 * @param served the requests served
	 */
	record Result(long refusals, double durationSeconds, double meanServiceSeconds, long served) {
	}

	/**
	 * Runs a trace.
	 * @param trace the workload
	 * @param strategies the strategy of the clients, given the emulation's clock (for telemetry)
	 * @param seed the seed of the clients' jitter
	 * @return the outcome
	 */
	static Result run(Trace trace, Function<PacingClock, PacingStrategy> strategies, long seed) {
		return new Emulation().execute(trace, strategies, seed);
	}

	private Result execute(Trace trace, Function<PacingClock, PacingStrategy> strategies, long seed) {
		PacingStrategy strategy = strategies.apply(this.clock);
		SplittableRandom seeds = new SplittableRandom(seed);
		double firstArrival = Double.MAX_VALUE;
		for (double[] arrivals : trace.arrivals()) {
			Client client = new Client(strategy.newPacing(TARGET, seeds.split(), this.start));
			for (double arrival : arrivals) {
				firstArrival = Math.min(firstArrival, arrival);
				long at = this.start + (long) (arrival * NANOS_PER_SECOND);
				schedule(at, () -> client.arrive(new Request()));
			}
		}
		while (!this.events.isEmpty()) {
			Event event = this.events.poll();
			long now = this.time.nanoTime();
			if (event.at > now) {
				this.time.advance(Duration.ofNanos(event.at - now));
			}
			event.action.run();
		}
		double duration = (this.lastServed - this.start) / (double) NANOS_PER_SECOND - firstArrival;
		return new Result(this.refusals, duration, this.serviceSeconds / this.served, this.served);
	}

	private void schedule(long at, Runnable action) {
		this.events.add(new Event(at, this.sequence++, action));
	}

	private long now() {
		return this.time.nanoTime();
	}

	private final class Client {

		private final Pacing pacing;

		private final Deque<Request> waiting = new ArrayDeque<>();

		private long wakeAt = Long.MAX_VALUE;

		Client(Pacing pacing) {
			this.pacing = pacing;
		}

		void arrive(Request request) {
			this.waiting.addLast(request);
			drain();
		}

		void drain() {
			while (!this.waiting.isEmpty()) {
				long wait = this.pacing.tryAcquire(now());
				if (wait > 0) {
					long at = now() + wait;
					if (at < this.wakeAt) {
						this.wakeAt = at;
						schedule(at, this::wake);
					}
					return;
				}
				send(this.waiting.pollFirst());
			}
		}

		private void wake() {
			if (now() >= this.wakeAt) {
				this.wakeAt = Long.MAX_VALUE;
				drain();
			}
		}

		private void send(Request request) {
			if (request.firstSent < 0) {
				request.firstSent = now();
			}
			schedule(now() + ROUND_TRIP_NANOS / 2, () -> {
				Feedback feedback = Emulation.this.server.handle();
				schedule(now() + ROUND_TRIP_NANOS / 2, () -> respond(request, feedback));
			});
		}

		private void respond(Request request, Feedback feedback) {
			this.pacing.onFeedback(now(), feedback);
			if (feedback.isRefused()) {
				Emulation.this.refusals++;
				this.waiting.addFirst(request);
			}
			else {
				Emulation.this.served++;
				Emulation.this.lastServed = now();
				Emulation.this.serviceSeconds += (now() - request.firstSent) / (double) NANOS_PER_SECOND;
			}
			drain();
		}

	}

	private static final class Request {

		private long firstSent = -1;

	}

	private record Event(long at, long sequence, Runnable action) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

}
