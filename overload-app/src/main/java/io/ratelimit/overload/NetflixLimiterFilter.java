package io.ratelimit.overload;

import java.io.IOException;
import java.util.Optional;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The smallest jakarta filter around Netflix's limiter core, for the experiment's Netflix
 * arm: its published servlet filter is {@code javax.servlet} only. The core's
 * {@code SimpleLimiter} with its default limit algorithm (Vegas), one limit for every
 * request and no priorities, as the published filter does without partitions; a refused
 * request gets 503, a request that failed is ignored, any other is a latency sample.
 * Synchronous requests only, which is all the experiment sends.
 */
class NetflixLimiterFilter implements Filter {

	private final Limiter<Void> limiter = SimpleLimiter.newBuilder().build();

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		Optional<Limiter.Listener> listener = this.limiter.acquire(null);
		if (listener.isEmpty()) {
			HttpServletResponse http = (HttpServletResponse) response;
			http.setStatus(503);
			http.setHeader("Retry-After", "1");
			return;
		}
		try {
			chain.doFilter(request, response);
			listener.get().onSuccess();
		}
		catch (IOException | ServletException | RuntimeException ex) {
			listener.get().onIgnore();
			throw ex;
		}
	}

}
