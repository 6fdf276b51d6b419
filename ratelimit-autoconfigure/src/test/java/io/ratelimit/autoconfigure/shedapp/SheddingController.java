package io.ratelimit.autoconfigure.shedapp;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Reports are sheddable and payments critical in the tests' configuration; orders are
 * left to the default class. Reports and orders wait at a gate the test opens, and every
 * handler counts how many requests it serves at once.
 */
@RestController
public class SheddingController {

	private volatile CountDownLatch gate = new CountDownLatch(0);

	private final AtomicInteger serving = new AtomicInteger();

	private final AtomicInteger mostServing = new AtomicInteger();

	/** Makes reports and orders wait until {@link #open()}. */
	public void close() {
		this.gate = new CountDownLatch(1);
	}

	/** Lets every waiting request finish. */
	public void open() {
		this.gate.countDown();
	}

	public int serving() {
		return this.serving.get();
	}

	public int mostServing() {
		return this.mostServing.get();
	}

	public void resetMostServing() {
		this.mostServing.set(0);
	}

	@GetMapping("/api/reports")
	String report() throws InterruptedException {
		return held("report");
	}

	@GetMapping("/api/orders/{id}")
	String order(@PathVariable String id) throws InterruptedException {
		return held("order " + id);
	}

	@PostMapping("/api/payments")
	String pay() {
		return "paid";
	}

	@GetMapping("/api/failing")
	String failing() {
		throw new IllegalStateException("failing on purpose");
	}

	@GetMapping("/api/async")
	Callable<String> async() {
		return () -> held("async");
	}

	/** Runs on past the request's timeout, until the gate opens: it ignores interrupts. */
	@GetMapping("/api/stubborn")
	Callable<String> stubborn() {
		return () -> {
			while (true) {
				try {
					return held("stubborn");
				}
				catch (InterruptedException ex) {
					// Ignored, as by a task that does not stop when Spring MVC cancels it.
				}
			}
		};
	}

	@GetMapping("/api/never")
	DeferredResult<String> never() {
		return new DeferredResult<>();
	}

	@GetMapping("/api/large")
	String large() throws InterruptedException {
		return held("x".repeat(4 * 1024 * 1024));
	}

	private String held(String body) throws InterruptedException {
		this.mostServing.accumulateAndGet(this.serving.incrementAndGet(), Math::max);
		try {
			if (!this.gate.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("gate never opened");
			}
			return body;
		}
		finally {
			this.serving.decrementAndGet();
		}
	}

}
