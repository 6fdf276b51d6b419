package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import jakarta.servlet.ServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.CallableProcessingInterceptor;

/**
 * Keeps a request's permits while a task its handler handed to Spring MVC (a
 * {@code Callable}, a {@code WebAsyncTask}, a {@code StreamingResponseBody}) still runs.
 * <p>
 * When such a request times out, the container ends the response with an error, but Spring
 * MVC can only interrupt the task, and a task that does not stop when interrupted keeps
 * running. Released with the response, its permits would let the caller start more work
 * than its in-flight limit, and the load shedder admit more than its concurrency limit, just
 * when the service is slow enough for requests to time out. So a release due when the
 * response completes waits until every such task of the request has returned.
 * <p>
 * A {@code DeferredResult} (and what Spring MVC turns into one: a {@code CompletableFuture},
 * a reactive type) is completed by threads of the application, which nothing here can
 * follow: its permits go back when the response completes.
 */
public final class AsyncTasks implements CallableProcessingInterceptor {

	private static final Log logger = LogFactory.getLog(AsyncTasks.class);

	private static final String ATTRIBUTE = AsyncTasks.class.getName();

	/**
	 * The running tasks of each request, found again by the task: once the task returns, the
	 * request may be complete and recycled by the container, and must not be read. Weak
	 * keys: a task that never ran (another interceptor failed before it was submitted)
	 * leaves nothing behind.
	 */
	private final Cache<Callable<?>, Running> running = Caffeine.newBuilder().weakKeys().build();

	@Override
	public <T> void beforeConcurrentHandling(NativeWebRequest request, Callable<T> task) {
		ServletRequest servlet = request.getNativeRequest(ServletRequest.class);
		if (servlet == null) {
			return;
		}
		Running tasks = (Running) servlet.getAttribute(ATTRIBUTE);
		if (tasks == null) {
			tasks = new Running();
			servlet.setAttribute(ATTRIBUTE, tasks);
		}
		tasks.started();
		this.running.put(task, tasks);
	}

	@Override
	public <T> void postProcess(NativeWebRequest request, Callable<T> task, @Nullable Object result) {
		Running tasks = this.running.asMap().remove(task);
		if (tasks != null) {
			tasks.ended();
		}
	}

	/**
	 * Returns what runs a release after the request's tasks: to be taken while the request
	 * is still in progress (the filter's thread, or the container's completion callbacks).
	 * @param request the request
	 * @return where to hand releases
	 */
	static Releases of(ServletRequest request) {
		Object tasks = request.getAttribute(ATTRIBUTE);
		return (tasks instanceof Running running) ? running::afterAll : Runnable::run;
	}

	/** Runs a release now, or once the tasks of its request have returned. */
	@FunctionalInterface
	interface Releases {

		void afterTasks(Runnable release);

	}

	private static final class Running {

		private int count;

		private @Nullable List<Runnable> waiting;

		synchronized void started() {
			this.count++;
		}

		void ended() {
			List<Runnable> due;
			synchronized (this) {
				if (--this.count > 0 || this.waiting == null) {
					return;
				}
				due = this.waiting;
				this.waiting = null;
			}
			due.forEach(Running::runSafely);
		}

		void afterAll(Runnable release) {
			synchronized (this) {
				if (this.count > 0) {
					if (this.waiting == null) {
						this.waiting = new ArrayList<>(2);
					}
					this.waiting.add(release);
					return;
				}
			}
			release.run();
		}

		/** On the task's thread: a failing release must neither skip the next nor fail the task. */
		private static void runSafely(Runnable release) {
			try {
				release.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Releasing the permits of a request whose task returned after the response failed", ex);
			}
		}

	}

}
