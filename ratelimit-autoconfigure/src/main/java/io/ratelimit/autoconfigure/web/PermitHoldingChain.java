package io.ratelimit.autoconfigure.web;

import java.io.IOException;

import io.ratelimit.core.shed.Completion;
import io.ratelimit.core.shed.Permit;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The rest of the chain, holding a load-shedding {@link Permit} while the application
 * serves the request and releasing it when the response completes: when the chain returns,
 * or, for a request that went asynchronous, when it completes, times out or fails.
 * <p>
 * Only an answer of the application is a latency sample ({@link Completion#SUCCESS} for
 * 2xx; a redirect or a 304 costs next to nothing): a 4xx is the caller's doing and usually cheap, a 5xx or an exception says
 * nothing about queueing, a client abort (an {@link IOException} from the chain) measures
 * the client, and a request the limiter answered itself never reached the application.
 * Fast answers like these, which a caller can produce at will, would otherwise pass for an
 * unloaded service and lower the limit for everyone. An asynchronous timeout is
 * {@link Completion#DROPPED}: the service did not answer in time.
 */
final class PermitHoldingChain implements FilterChain {

	private final FilterChain chain;

	private final Permit permit;

	private boolean reached;

	PermitHoldingChain(FilterChain chain, Permit permit) {
		this.chain = chain;
		this.permit = permit;
	}

	@Override
	public void doFilter(ServletRequest request, ServletResponse response) throws IOException, ServletException {
		this.reached = true;
		boolean completed = false;
		try {
			this.chain.doFilter(request, response);
			completed = true;
		}
		finally {
			if (!completed) {
				this.permit.release(Completion.IGNORED);
			}
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext().addListener(new Release(this.permit, response, AsyncTasks.of(request)));
		}
		else {
			this.permit.release(completionOf(response));
		}
	}

	/**
	 * Releases the permit of a request the limiter answered itself, or whose chain never ran.
	 */
	void releaseIfNotReached() {
		if (!this.reached) {
			this.permit.release(Completion.IGNORED);
		}
	}

	static Completion completionOf(ServletResponse response) {
		int status = (response instanceof HttpServletResponse http) ? http.getStatus() : 200;
		// 2xx only: a redirect or a 304 costs the application next to nothing, and any
		// caller can have one at will; its latency would read as a queue-free baseline.
		return (status >= 200 && status < 300) ? Completion.SUCCESS : Completion.IGNORED;
	}

	private static final class Release implements AsyncListener {

		private final Permit permit;

		/** The context's response is out of reach once it completed: this is the same one. */
		private final ServletResponse response;

		private final AsyncTasks.Releases releases;

		Release(Permit permit, ServletResponse response, AsyncTasks.Releases releases) {
			this.permit = permit;
			this.response = response;
			this.releases = releases;
		}

		// The completion is read now, and the permit given back once the request's tasks
		// have returned (AsyncTasks): a timed-out task still running holds its place.

		@Override
		public void onComplete(AsyncEvent event) {
			Completion completion = completionOf(this.response);
			this.releases.afterTasks(() -> this.permit.release(completion));
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			this.releases.afterTasks(() -> this.permit.release(Completion.DROPPED));
		}

		@Override
		public void onError(AsyncEvent event) {
			this.releases.afterTasks(() -> this.permit.release(Completion.IGNORED));
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			// A handler that starts asynchronous processing again keeps this listener.
			event.getAsyncContext().addListener(this);
		}

	}

}
