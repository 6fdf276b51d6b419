package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;

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
 * response completes waits until the request's running tasks have returned.
 * <p>
 * A task counts from the moment it starts on its executor ({@code preProcess}) to the moment
 * it returns ({@code postProcess}, which Spring MVC calls for every interceptor whose
 * {@code preProcess} ran, whatever the task did): a task the executor rejected, or that was
 * cancelled while it waited in the queue, never counts, and so never holds a release back.
 * Once the response has completed, a task that has not started yet is refused: it would
 * otherwise run without permits (Spring MVC cancels such a task too, which an executor of
 * the application might not honour). Tasks are told apart by the asynchronous request Spring MVC
 * made for them (one per handler call), not by the {@code Callable}, which requests may
 * share (a lambda that captures nothing is one instance).
 * <p>
 * A {@code DeferredResult} (and what Spring MVC turns into one: a {@code CompletableFuture},
 * a reactive type) is completed by threads of the application, which nothing here can
 * follow: its permits go back when the response completes.
 */
public final class AsyncTasks implements CallableProcessingInterceptor {

	private static final Log logger = LogFactory.getLog(AsyncTasks.class);

	private static final String ATTRIBUTE = AsyncTasks.class.getName();

	/**
	 * The task this thread runs, from its start to its return: both run on its thread. Not
	 * static: two instances in one chain each count the task, and each must uncount it.
	 */
	private final ThreadLocal<Tasks> current = new ThreadLocal<>();

	/**
	 * The tasks of each request, found by the asynchronous request Spring MVC passes when the
	 * task starts: the servlet request may be complete and recycled by then, and must not be
	 * read. Weak keys: an entry goes with its asynchronous request.
	 */
	private final Cache<NativeWebRequest, Tasks> submitted = Caffeine.newBuilder().weakKeys().build();

	@Override
	public <T> void beforeConcurrentHandling(NativeWebRequest request, Callable<T> task) {
		ServletRequest servlet = request.getNativeRequest(ServletRequest.class);
		if (servlet != null) {
			this.submitted.put(request, tasksOf(servlet));
		}
	}

	@Override
	public <T> void preProcess(NativeWebRequest request, Callable<T> task) {
		// Unknown: Spring MVC replaced the asynchronous request, as it does when it dispatches
		// the request again (a timeout's answer), so the response is being completed.
		Tasks tasks = this.submitted.getIfPresent(request);
		if (tasks == null || !tasks.start()) {
			throw new CancellationException("The response of this task's request has completed: it does not run");
		}
		this.current.set(tasks);
	}

	@Override
	public <T> void postProcess(NativeWebRequest request, Callable<T> task, @Nullable Object result) {
		Tasks tasks = this.current.get();
		this.current.remove();
		if (tasks != null) {
			tasks.returned();
		}
	}

	/**
	 * Returns what runs a release after the request's running tasks: to be called while the
	 * request is in progress (by the filter once its chain returned, with the request
	 * asynchronous).
	 * @param request the request
	 * @return where to hand releases
	 */
	static Releases of(ServletRequest request) {
		return tasksOf(request)::afterRunning;
	}

	private static Tasks tasksOf(ServletRequest request) {
		Tasks tasks = (Tasks) request.getAttribute(ATTRIBUTE);
		if (tasks == null) {
			tasks = new Tasks();
			request.setAttribute(ATTRIBUTE, tasks);
		}
		return tasks;
	}

	/** Runs a release now, or once the running tasks of its request have returned. */
	@FunctionalInterface
	interface Releases {

		void afterTasks(Runnable release);

	}

	/** The tasks of one request. */
	private static final class Tasks {

		private int running;

		private boolean completed;

		private @Nullable List<Runnable> waiting;

		/** A task starts, unless the response completed. */
		synchronized boolean start() {
			if (this.completed) {
				return false;
			}
			this.running++;
			return true;
		}

		void returned() {
			List<Runnable> due;
			synchronized (this) {
				if (--this.running > 0 || this.waiting == null) {
					return;
				}
				due = this.waiting;
				this.waiting = null;
			}
			due.forEach(Tasks::runSafely);
		}

		/** The response completed: the release runs once no task runs, and none starts after. */
		void afterRunning(Runnable release) {
			synchronized (this) {
				this.completed = true;
				if (this.running > 0) {
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
