package io.ratelimit.autoconfigure.web;

import io.ratelimit.core.HeldPermits;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Gives back the permits of a request under in-flight limits when its response completes.
 * Called once the filter chain has returned, normally or with an exception (a handler's
 * failure, a client abort's {@code IOException}): a request that is not asynchronous is
 * complete then, and its permits go back at once. An asynchronous request ({@code Callable},
 * {@code DeferredResult}, ...) is still in progress: its permits go back when the
 * asynchronous processing completes, fails or times out, whichever the container reports
 * first, and once the tasks the handler handed to Spring MVC have returned
 * ({@link AsyncTasks}). Release happens once whatever the number of calls
 * ({@link HeldPermits}).
 */
final class InFlightRelease {

	private InFlightRelease() {
	}

	static void whenResponseCompletes(HttpServletRequest request, HeldPermits permits) {
		if (!request.isAsyncStarted()) {
			permits.release();
			return;
		}
		try {
			request.getAsyncContext().addListener(new Listener(permits, AsyncTasks.of(request)));
		}
		catch (IllegalStateException ex) {
			// The asynchronous processing ended meanwhile: nothing holds the request any more.
			permits.release();
		}
	}

	/**
	 * Releases on the first of complete, error and timeout; follows a handler that starts
	 * asynchronous processing again.
	 */
	private static final class Listener implements AsyncListener {

		private final HeldPermits permits;

		private final AsyncTasks.Releases releases;

		Listener(HeldPermits permits, AsyncTasks.Releases releases) {
			this.permits = permits;
			this.releases = releases;
		}

		@Override
		public void onComplete(AsyncEvent event) {
			this.releases.afterTasks(this.permits::release);
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			this.releases.afterTasks(this.permits::release);
		}

		@Override
		public void onError(AsyncEvent event) {
			this.releases.afterTasks(this.permits::release);
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			event.getAsyncContext().addListener(this);
		}

	}

}
