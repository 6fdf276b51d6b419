package io.ratelimit.client.strategy;

import java.util.random.RandomGenerator;

import io.ratelimit.client.Feedback;
import io.ratelimit.client.Pacing;
import io.ratelimit.client.Target;
import io.ratelimit.client.fleet.FleetTelemetry;
import io.ratelimit.client.fleet.FleetView;

/**
 * AATB: the adaptive token bucket, steered by what the fleet reports. Every report interval
 * the client reports its sends and refusals and reads the fleet's last window: if anyone was
 * refused, it holds off for about one interval; otherwise it raises its rate, faster while its
 * own load is light. On its own refusal it reports at once, cuts its rate by its share of the
 * load, keeps one token and waits out the refused clients' share of the others' rate. While
 * the telemetry knows nothing (unreachable, or nobody reported) it behaves as ATB.
 */
final class AssistedTokenBucket implements Pacing {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	/** A client below this share of the average load raises its rate by α, others by β. */
	private static final double LIGHT_LOAD = 0.75;

	/** A refused client below this share of the average load halves its rate, others divide by 3. */
	private static final double LOW_LOAD = 0.5;

	/** The tokens a refused client keeps: one request after its wait. */
	private static final double TOKENS_AFTER_REFUSAL = 1.1;

	/** The half-width of the jitter on the fleet-wide hold-off, in seconds. */
	private static final double HOLD_OFF_JITTER_SECONDS = 2;

	private final AdaptiveTokenBucket alone;

	private final AdaptiveSettings settings;

	private final FleetTelemetry telemetry;

	private final Target target;

	private final String clientId;

	private final RandomGenerator random;

	private final long intervalNanos;

	private final LocalTokens tokens;

	private long reportedAt;

	private long increasedAt;

	private long sentSinceReport;

	private boolean refusedSinceReport;

	private long lastReportedLoad;

	private long notBefore;

	private boolean holding;

	AssistedTokenBucket(AdaptiveSettings settings, FleetTelemetry telemetry, Target target, String clientId,
			long intervalNanos, RandomGenerator random, long nowNanos) {
		this.alone = new AdaptiveTokenBucket(settings, random, nowNanos);
		this.settings = settings;
		this.telemetry = telemetry;
		this.target = target;
		this.clientId = clientId;
		this.random = random;
		this.intervalNanos = intervalNanos;
		this.tokens = this.alone.tokens();
		this.reportedAt = nowNanos;
		this.increasedAt = nowNanos - intervalNanos;
	}

	@Override
	public long tryAcquire(long nowNanos) {
		routine(nowNanos);
		if (this.holding && nowNanos - this.notBefore < 0) {
			return Math.min(this.notBefore - nowNanos, nextRoutine(nowNanos));
		}
		this.holding = false;
		long wait = this.tokens.tryTake(nowNanos);
		if (wait == 0) {
			this.sentSinceReport++;
			return 0;
		}
		return Math.min(wait, nextRoutine(nowNanos));
	}

	@Override
	public void onFeedback(long nowNanos, Feedback feedback) {
		if (!feedback.hasResponse()) {
			return;
		}
		if (feedback.isRefused()) {
			this.refusedSinceReport = true;
			// Reported first, so that the refused clients counted below include this one.
			this.telemetry.reportCongestion(this.target, this.clientId);
		}
		FleetView view = this.telemetry.view(this.target);
		if (feedback.isRefused()) {
			if (view == null || view.activeClients() == 0) {
				this.alone.onRefusal(nowNanos);
			}
			else {
				onRefusal(nowNanos, view);
			}
		}
		else if (view == null || view.activeClients() == 0) {
			this.alone.onSuccess(nowNanos);
		}
	}

	private void onRefusal(long nowNanos, FleetView view) {
		double rate = this.tokens.rate();
		double divisor = (this.lastReportedLoad < LOW_LOAD * view.averageLoad()) ? 2 : 3;
		this.tokens.rate(nowNanos, Math.max(this.settings.floorRate(), rate / divisor));
		this.tokens.tokens(nowNanos, TOKENS_AFTER_REFUSAL);
		double intervalSeconds = (double) this.intervalNanos / NANOS_PER_SECOND;
		double othersRate = Math.max(0, view.requests() - this.lastReportedLoad) / intervalSeconds;
		double waitSeconds = ((othersRate > 0) ? view.congestedClients() / othersRate : 0) + this.random.nextDouble();
		holdUntil(nowNanos + (long) (waitSeconds * NANOS_PER_SECOND));
	}

	/** The report and the fleet-wide decisions, at most once per interval. */
	private void routine(long nowNanos) {
		if (nowNanos - this.reportedAt < this.intervalNanos) {
			return;
		}
		this.telemetry.report(this.target, this.clientId, this.sentSinceReport, this.refusedSinceReport);
		this.lastReportedLoad = this.sentSinceReport;
		this.sentSinceReport = 0;
		this.refusedSinceReport = false;
		this.reportedAt = nowNanos;
		FleetView view = this.telemetry.view(this.target);
		if (view == null || view.activeClients() == 0) {
			return;
		}
		if (view.congestedClients() > 0) {
			double jitter = this.random.nextDouble(-HOLD_OFF_JITTER_SECONDS, HOLD_OFF_JITTER_SECONDS);
			holdUntil(nowNanos + this.intervalNanos + (long) (jitter * NANOS_PER_SECOND));
		}
		else if (nowNanos - this.increasedAt >= this.intervalNanos) {
			double rate = this.tokens.rate();
			double factor = (this.lastReportedLoad < LIGHT_LOAD * view.averageLoad())
					? this.settings.belowCongestionFactor() : this.settings.aboveCongestionFactor();
			this.tokens.rate(nowNanos, Math.max(rate * factor, rate + this.settings.step()));
			this.increasedAt = nowNanos;
		}
	}

	private void holdUntil(long notBefore) {
		if (!this.holding || notBefore - this.notBefore > 0) {
			this.notBefore = notBefore;
			this.holding = true;
		}
	}

	double rate() {
		return this.tokens.rate();
	}

	private long nextRoutine(long nowNanos) {
		return Math.max(1, this.reportedAt + this.intervalNanos - nowNanos);
	}

}
