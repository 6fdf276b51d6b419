package io.ratelimit.overload;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two endpoints whose cost is real: each request holds one of a few connections of a
 * bounded pool (as a database pool would) for a fixed service time. The pool, not the
 * CPU, bounds the capacity (connections / service time), so capacity does not move with
 * whatever else the machine runs; a request that finds the pool busy waits in its queue.
 */
@RestController
class WorkController {

	private final Semaphore pool;

	private final long serviceMicros;

	WorkController(@Value("${overload.pool-size:4}") int poolSize,
			@Value("${overload.service-time-micros:10000}") long serviceMicros) {
		this.pool = new Semaphore(poolSize, true);
		this.serviceMicros = serviceMicros;
	}

	@PostMapping("/api/payments")
	String pay() throws InterruptedException {
		return work("paid");
	}

	@GetMapping("/api/reports")
	String report() throws InterruptedException {
		return work("report");
	}

	private String work(String answer) throws InterruptedException {
		this.pool.acquire();
		try {
			TimeUnit.MICROSECONDS.sleep(this.serviceMicros);
			return answer;
		}
		finally {
			this.pool.release();
		}
	}

}
