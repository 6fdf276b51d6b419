package io.ratelimit.autoconfigure.testsupport;

import java.net.http.HttpResponse;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every refusal by a rate limit must show, whichever store decided it: where the exact
 * figures depend on timing (batched leases), these are the fields a client relies on.
 */
public final class Refusals {

	private static final Pattern POLICY = Pattern.compile("\"policy\":\"([^\"]+)\"");

	private Refusals() {
	}

	/**
	 * Asserts that a response is a refusal by a rate limit whose problem body names the limit
	 * that refused, that the limit's {@code RateLimit} item reports less than the request
	 * costs and a wait, and that {@code Retry-After} waits at least that long.
	 * @param refused the response
	 * @param costOf what the request costs a limit, in tokens, by the limit's name
	 * @return the name of the limit that refused
	 */
	public static String assertRefusedWithItsFields(HttpResponse<String> refused, ToIntFunction<String> costOf) {
		assertThat(refused.statusCode()).isEqualTo(429);
		Matcher policy = POLICY.matcher(refused.body());
		assertThat(policy.find()).as("the problem names the limit that refused: %s", refused.body()).isTrue();
		String limit = policy.group(1);
		Matcher item = Pattern.compile("\"" + Pattern.quote(limit) + "\";r=(\\d+);t=(\\d+)")
			.matcher(refused.headers().firstValue("RateLimit").orElseThrow());
		assertThat(item.find()).as("RateLimit names %s: %s", limit, refused.headers().map()).isTrue();
		assertThat(Long.parseLong(item.group(1))).as("what %s reports left: %s", limit, refused.headers().map())
			.isLessThan(costOf.applyAsInt(limit));
		long wait = Long.parseLong(item.group(2));
		assertThat(wait).isPositive();
		assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
			.isGreaterThanOrEqualTo(wait);
		return limit;
	}

	/**
	 * Asserts that a response is a refusal by the named limit of a request costing one token,
	 * with the fields of {@link #assertRefusedWithItsFields(HttpResponse, ToIntFunction)}.
	 * @param limit the name of the limit expected to refuse
	 * @param refused the response
	 */
	public static void assertRefusedBy(String limit, HttpResponse<String> refused) {
		assertThat(assertRefusedWithItsFields(refused, (name) -> 1)).isEqualTo(limit);
	}

}
