package io.ratelimit.client.fleet;

/**
 * What the clients of one fleet reported for a target over the last complete window.
 *
 * @param activeClients the clients that reported
 * @param requests the requests they sent
 * @param congestedClients the clients that met a refusal in that window or since
 */
public record FleetView(int activeClients, long requests, int congestedClients) {

	/**
	 * Returns the average number of requests per reporting client.
	 * @return the average load, 0 when nobody reported
	 */
	public double averageLoad() {
		return (this.activeClients > 0) ? (double) this.requests / this.activeClients : 0;
	}

}
