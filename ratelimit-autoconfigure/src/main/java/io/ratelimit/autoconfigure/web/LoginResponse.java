package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.util.function.IntConsumer;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The response of a login attempt, body held back so headers can still be added once the
 * status is known. A redirect or an error commits the response at once, so the attempt is
 * settled first, with the status it sends.
 */
final class LoginResponse extends ContentCachingResponseWrapper {

	private final IntConsumer settlement;

	private boolean settled;

	LoginResponse(HttpServletResponse response, IntConsumer settlement) {
		super(response);
		this.settlement = settlement;
	}

	void settle(int status) {
		if (!this.settled) {
			this.settled = true;
			this.settlement.accept(status);
		}
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		settle(SC_FOUND);
		super.sendRedirect(location);
	}

	@Override
	public void sendError(int status) throws IOException {
		settle(status);
		super.sendError(status);
	}

	@Override
	public void sendError(int status, String message) throws IOException {
		settle(status);
		super.sendError(status, message);
	}

}
