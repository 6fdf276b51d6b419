package io.ratelimit.client.fleet;

import io.ratelimit.client.Target;
import org.jspecify.annotations.Nullable;

/**
 * Where the clients of one fleet share how much they send and whether they are refused, so
 * that each can pace itself by what the others do (the assisted adaptive token bucket).
 *
 * <p>Telemetry is advice, never a dependency: every method returns at once without
 * throwing, reports are best effort, and when nothing is known {@link #view} returns
 * {@code null} and the strategy behaves as if alone. Reports never count against the quota
 * of the API being called.
 */
public interface FleetTelemetry {

	/**
	 * Adds one client's counts since its previous report to the current window.
	 * @param target the target
	 * @param clientId the reporting client, unique in the fleet
	 * @param requests the requests it sent since its previous report
	 * @param congested whether any of them was refused
	 */
	void report(Target target, String clientId, long requests, boolean congested);

	/**
	 * Tells the fleet at once that a client was refused, ahead of its routine report.
	 * @param target the target
	 * @param clientId the refused client
	 */
	void reportCongestion(Target target, String clientId);

	/**
	 * Returns what the fleet reported over the last complete window, with congestion
	 * reported since.
	 * @param target the target
	 * @return the aggregate, or {@code null} when it is unknown (nothing reported yet, or the
	 * telemetry unreachable)
	 */
	@Nullable FleetView view(Target target);

}
