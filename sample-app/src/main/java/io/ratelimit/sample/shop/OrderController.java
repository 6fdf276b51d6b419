package io.ratelimit.sample.shop;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Orders and reports: the expensive endpoints, weighted in the limiter's configuration.
 */
@RestController
class OrderController {

	private final AtomicLong ids = new AtomicLong(1000);

	@PostMapping("/api/orders")
	@ResponseStatus(HttpStatus.CREATED)
	Map<String, Object> order(@RequestBody(required = false) Map<String, Object> order) {
		return Map.of("id", this.ids.incrementAndGet(), "status", "accepted");
	}

	@GetMapping("/api/orders/{id}/items")
	List<Map<String, Object>> items(@PathVariable long id) {
		return List.of(Map.of("order", id, "product", 1, "quantity", 2));
	}

	@GetMapping("/api/reports/{id}")
	Map<String, Object> report(@PathVariable String id) {
		return Map.of("report", id, "rows", 42);
	}

}
