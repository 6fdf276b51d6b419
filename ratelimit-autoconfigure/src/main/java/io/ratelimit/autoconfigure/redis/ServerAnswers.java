package io.ratelimit.autoconfigure.redis;

/**
 * What a remote bucket store tells its {@link FailoverBucketStore} about the server behind
 * it, so that the breaker counts the server's answers rather than the store's: a store that
 * decides some requests from memory (a refusal from the state it last saw, a decision from
 * a lease) returns normally while its server hangs.
 */
public interface ServerAnswers {

	/**
	 * Returns how many times the server has answered since the store was created; it grows
	 * with every answer, whichever request the answer was for.
	 * @return the count of answers
	 */
	long count();

	/**
	 * Makes one call that only the server can answer, within the store's timeout.
	 * @throws RuntimeException if the server did not answer
	 */
	void probe();

}
