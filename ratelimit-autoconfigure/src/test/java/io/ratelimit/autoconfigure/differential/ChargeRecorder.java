package io.ratelimit.autoconfigure.differential;

import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Records the template the limiter charged each request to, through the same hook an
 * application's metrics would use, so the test observes the limiter from outside.
 */
class ChargeRecorder implements RateLimitFilterListener {

	private final RequestLedger ledger;

	ChargeRecorder(RequestLedger ledger) {
		this.ledger = ledger;
	}

	@Override
	public void onDecision(HttpServletRequest request, Decision decision) {
		this.ledger.charged(request.getHeader(RequestLedger.REQUEST_ID), decision.endpoint());
	}

	@Override
	public void onFailure(HttpServletRequest request, RuntimeException failure) {
		this.ledger.failed(request.getHeader(RequestLedger.REQUEST_ID), failure);
	}

}
