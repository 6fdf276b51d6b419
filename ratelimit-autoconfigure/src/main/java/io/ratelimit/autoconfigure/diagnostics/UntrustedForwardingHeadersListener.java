package io.ratelimit.autoconfigure.diagnostics;

import java.util.concurrent.atomic.AtomicBoolean;

import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Warns once ({@link Diagnostic#W001}) when requests carry {@code X-Forwarded-For} or
 * {@code Forwarded} while no proxy is trusted. Then the limiter rightly ignores the
 * headers and keys clients by their peer address; but if that peer is a reverse proxy or
 * load balancer, all clients share its one bucket and a single client can exhaust it for
 * everyone.
 * <p>
 * Costs two header lookups per request until it has warned, then one volatile read.
 */
public class UntrustedForwardingHeadersListener implements RateLimitFilterListener {

	private static final Log logger = LogFactory.getLog(UntrustedForwardingHeadersListener.class);

	private static final String X_FORWARDED_FOR = "X-Forwarded-For";

	private static final String FORWARDED = "Forwarded";

	// Starts as done when proxies are trusted: there is nothing to warn about.
	private final AtomicBoolean done;

	/**
	 * Creates a listener.
	 * @param proxiesTrusted whether {@code ratelimit.client-ip.trusted-proxies} names any
	 * proxy, in which case the listener never warns
	 */
	public UntrustedForwardingHeadersListener(boolean proxiesTrusted) {
		this.done = new AtomicBoolean(proxiesTrusted);
	}

	@Override
	public void onDecision(HttpServletRequest request, Decision decision) {
		if (this.done.get()) {
			return;
		}
		String header = (request.getHeader(X_FORWARDED_FOR) != null) ? X_FORWARDED_FOR
				: (request.getHeader(FORWARDED) != null) ? FORWARDED : null;
		if (header != null && this.done.compareAndSet(false, true)) {
			logger.warn(Diagnostic.W001.message("Requests from an untrusted peer carried " + header
					+ ", but ratelimit.client-ip.trusted-proxies is empty, so the header is ignored and each client "
					+ "is keyed by the address it connects from. If the application runs behind a reverse proxy or "
					+ "load balancer, every client shares the proxy's bucket and one busy client can exhaust it for "
					+ "all. Set ratelimit.client-ip.trusted-proxies to the proxies' addresses or CIDR ranges (and "
					+ "ratelimit.client-ip.header=forwarded if they send Forwarded). If clients connect directly, "
					+ "the header was set by a client and ignoring it is right. Logged once."));
		}
	}

}
