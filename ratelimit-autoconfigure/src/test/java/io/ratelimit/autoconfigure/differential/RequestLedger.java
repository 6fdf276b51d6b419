package io.ratelimit.autoconfigure.differential;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.jspecify.annotations.Nullable;

/**
 * What happened to each request, keyed by its {@value #REQUEST_ID} header: the templates
 * the limiter charged, the limiter failures, and the handlers that served it on the
 * {@code REQUEST} dispatch. Lists rather than single values, so that a request charged or
 * served twice shows up as such instead of overwriting itself.
 */
public final class RequestLedger {

	/** The header that names a request in the ledger. */
	public static final String REQUEST_ID = "X-Request-Id";

	private final Map<String, List<EndpointTemplate>> charges = new ConcurrentHashMap<>();

	private final Map<String, List<String>> failures = new ConcurrentHashMap<>();

	private final Map<String, List<Serving>> servings = new ConcurrentHashMap<>();

	private final AtomicInteger anonymous = new AtomicInteger();

	void charged(@Nullable String requestId, EndpointTemplate endpoint) {
		if (requestId == null) {
			this.anonymous.incrementAndGet();
			return;
		}
		this.charges.computeIfAbsent(requestId, (id) -> new CopyOnWriteArrayList<>()).add(endpoint);
	}

	void failed(@Nullable String requestId, RuntimeException failure) {
		if (requestId == null) {
			this.anonymous.incrementAndGet();
			return;
		}
		this.failures.computeIfAbsent(requestId, (id) -> new CopyOnWriteArrayList<>()).add(failure.toString());
	}

	void served(@Nullable String requestId, Serving serving) {
		if (requestId == null) {
			this.anonymous.incrementAndGet();
			return;
		}
		this.servings.computeIfAbsent(requestId, (id) -> new CopyOnWriteArrayList<>()).add(serving);
	}

	/**
	 * Returns the templates the limiter charged a request to, in order.
	 * @param requestId the request
	 * @return the templates, empty if the limiter never decided the request
	 */
	public List<EndpointTemplate> charges(String requestId) {
		return List.copyOf(this.charges.getOrDefault(requestId, List.of()));
	}

	/**
	 * Returns the limiter's failures on a request, so that a failure is never mistaken
	 * for a request the limiter did not see.
	 * @param requestId the request
	 * @return the failures, empty if there were none
	 */
	public List<String> failures(String requestId) {
		return List.copyOf(this.failures.getOrDefault(requestId, List.of()));
	}

	/**
	 * Returns the handlers that served a request on its {@code REQUEST} dispatch.
	 * @param requestId the request
	 * @return the servings, empty if no handler was reached
	 */
	public List<Serving> servings(String requestId) {
		return List.copyOf(this.servings.getOrDefault(requestId, List.of()));
	}

	/**
	 * Returns how many decisions, failures or servings came without a request id: every
	 * request the test sends has one, so anything else means something was charged or
	 * served that the ledger cannot attribute.
	 * @return the count of unattributed records
	 */
	public int anonymous() {
		return this.anonymous.get();
	}

	/**
	 * A handler that served a request.
	 * @param method the request method as the handler saw it
	 * @param pattern the best-matching pattern Spring MVC exposed, or {@code null} if the
	 * handler was found without one
	 * @param handler the handler's type, e.g. a controller method or the static-resource
	 * handler
	 * @param handlerDescription the handler, for failure messages
	 * @param version the API version the handler method is mapped with, or {@code null}
	 */
	public record Serving(String method, @Nullable String pattern, Class<?> handler, String handlerDescription,
			@Nullable String version) {

	}

}
