package io.ratelimit.autoconfigure.inflightapp;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;

@RestController
class InFlightApiController {

	/** Captures nothing: the JVM hands every request this one instance. */
	private static final Callable<String> SHARED = () -> {
		SlowHandlers.enterAndWait();
		return "shared";
	};

	/** One thread: a second task waits in the queue, and may time out there. */
	private static final ThreadPoolTaskExecutor ONE_THREAD = oneThread();

	private static ThreadPoolTaskExecutor oneThread() {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(1);
		executor.setMaxPoolSize(1);
		executor.setThreadNamePrefix("one-thread-");
		executor.setDaemon(true);
		executor.initialize();
		return executor;
	}

	@GetMapping("/api/slow/{id}")
	String slow(@PathVariable String id) throws InterruptedException {
		SlowHandlers.enterAndWait();
		return "slow " + id;
	}

	@GetMapping("/api/watched/{id}")
	String watched(@PathVariable String id) throws InterruptedException {
		SlowHandlers.enterAndWait();
		return "watched " + id;
	}

	@GetMapping("/api/fast")
	String fast() {
		return "fast";
	}

	@GetMapping("/api/fail")
	String fail() {
		throw new IllegalStateException("the handler failed");
	}

	@GetMapping("/api/deferred/{id}")
	DeferredResult<String> deferred(@PathVariable String id) {
		return SlowHandlers.defer(30_000);
	}

	/** Times out after 200 ms, and stops when Spring MVC then interrupts it. */
	@GetMapping("/api/task-timeout/{id}")
	WebAsyncTask<String> taskTimeout(@PathVariable String id) {
		return new WebAsyncTask<>(200, () -> {
			SlowHandlers.enterAndWait();
			return "task " + id;
		});
	}

	/** Times out after 200 ms, and runs on until the test opens the gate. */
	@GetMapping("/api/stubborn-task/{id}")
	WebAsyncTask<String> stubbornTask(@PathVariable String id) {
		return new WebAsyncTask<>(200, () -> {
			SlowHandlers.enterAndWaitThroughInterrupts();
			return "stubborn " + id;
		});
	}

	@GetMapping("/api/shared-task/{id}")
	Callable<String> sharedTask(@PathVariable String id) {
		return SHARED;
	}

	/** An executor that is full: the task is never run. */
	@GetMapping("/api/rejected-task/{id}")
	WebAsyncTask<String> rejectedTask(@PathVariable String id) {
		AsyncTaskExecutor full = (task) -> {
			throw new TaskRejectedException("full");
		};
		return new WebAsyncTask<>(5_000L, full, () -> "never");
	}

	@GetMapping("/api/queued-task/{id}")
	WebAsyncTask<String> queuedTask(@PathVariable String id) {
		return new WebAsyncTask<>(300L, ONE_THREAD, () -> {
			SlowHandlers.enterAndWaitThroughInterrupts();
			return "queued " + id;
		});
	}

	/**
	 * Asynchronous twice: a {@code DeferredResult} whose result, set from another thread, is
	 * a task that times out after 200 ms and runs on until the test opens the gate.
	 */
	@GetMapping("/api/deferred-task/{id}")
	DeferredResult<WebAsyncTask<String>> deferredTask(@PathVariable String id) {
		DeferredResult<WebAsyncTask<String>> result = new DeferredResult<>(30_000L);
		CompletableFuture.runAsync(() -> result.setResult(new WebAsyncTask<>(200L, () -> {
			SlowHandlers.enterAndWaitThroughInterrupts();
			return "nested " + id;
		})), CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
		return result;
	}

	@GetMapping("/api/deferred-timeout")
	DeferredResult<String> deferredTimeout() {
		return SlowHandlers.defer(200);
	}

	/** Waits, then writes more than any socket buffer holds: to a client gone, it fails. */
	@GetMapping("/api/large")
	void large(HttpServletResponse response) throws IOException, InterruptedException {
		SlowHandlers.enterAndWait();
		response.setContentType("application/octet-stream");
		byte[] chunk = new byte[64 * 1024];
		OutputStream body = response.getOutputStream();
		for (int i = 0; i < 512; i++) {
			body.write(chunk);
			body.flush();
		}
	}

}
