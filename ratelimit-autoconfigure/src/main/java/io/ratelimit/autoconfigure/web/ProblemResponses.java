package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import io.ratelimit.core.Decision;
import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.shed.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the limiter's own answers as RFC 9457 problem details, directly (not through
 * {@code sendError}, which would dispatch to {@code /error} and run the chain again). The
 * body names the endpoint template and the policy (of layered limits, the one that refused),
 * never a key, token or address.
 */
final class ProblemResponses {

	static final String PROBLEM_JSON = "application/problem+json";

	private ProblemResponses() {
	}

	/**
	 * 429 with {@code Retry-After}, the rate-limit fields, {@code Cache-Control: no-store}
	 * and, except for HEAD, a problem body.
	 */
	static void tooManyRequests(HttpServletRequest request, HttpServletResponse response, Decision decision)
			throws IOException {
		decision.forEachHeader(response::setHeader);
		String detail = "Rate limit exceeded for " + decision.endpoint() + "; retry after "
				+ decision.retryAfterSeconds() + (decision.retryAfterSeconds() == 1 ? " second." : " seconds.");
		write(request, response, 429, "Too Many Requests", detail,
				",\"endpoint\":" + quote(decision.endpoint().toString()) + ",\"policy\":"
						+ quote(decision.limitName()));
	}

	/**
	 * 404 for a request the application has no handler for, when unknown endpoints are
	 * rejected early.
	 */
	static void notFound(HttpServletRequest request, HttpServletResponse response) throws IOException {
		write(request, response, 404, "Not Found", "No endpoint serves this request.", "");
	}

	/**
	 * 503 when the limiter failed and fails closed.
	 */
	static void unavailable(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader(Decision.RETRY_AFTER, "1");
		write(request, response, 503, "Service Unavailable", "The rate limiter could not decide this request.", "");
	}

	/**
	 * 503 with {@code Retry-After} for a request shed under overload: the service's fault,
	 * so no rate-limit fields, which describe the caller's quota.
	 */
	static void shed(HttpServletRequest request, HttpServletResponse response, EndpointTemplate endpoint,
			Priority priority, long retryAfterSeconds) throws IOException {
		response.setHeader(Decision.RETRY_AFTER, Long.toString(retryAfterSeconds));
		write(request, response, 503, "Service Unavailable",
				"The service is overloaded; retry after " + retryAfterSeconds
						+ ((retryAfterSeconds == 1) ? " second." : " seconds."),
				",\"endpoint\":" + quote(endpoint.toString()) + ",\"priority\":" + quote(priority.name()));
	}

	private static void write(HttpServletRequest request, HttpServletResponse response, int status, String title,
			String detail, String extensions) throws IOException {
		response.setStatus(status);
		response.setHeader("Cache-Control", "no-store");
		response.setContentType(PROBLEM_JSON);
		byte[] body = ("{\"type\":\"about:blank\",\"title\":" + quote(title) + ",\"status\":" + status
				+ ",\"detail\":" + quote(detail) + extensions + "}")
			.getBytes(StandardCharsets.UTF_8);
		response.setContentLength(body.length);
		if (!"HEAD".equals(request.getMethod())) {
			response.getOutputStream().write(body);
		}
		response.flushBuffer();
	}

	/**
	 * A JSON string literal. The values written here come from the template grammar, but
	 * escaping everything that needs it keeps the body valid whatever they hold.
	 */
	static String quote(String value) {
		StringBuilder json = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				default -> {
					if (c < 0x20) {
						json.append(String.format("\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		return json.append('"').toString();
	}

}
