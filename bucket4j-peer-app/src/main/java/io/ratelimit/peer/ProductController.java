package io.ratelimit.peer;

import java.util.List;
import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample shop's product catalogue: the same code as the sample's
 * {@code io.ratelimit.sample.shop.ProductController}, so that the load test compares the two
 * applications on the same endpoint with the same response ({@code GET /api/products}).
 */
@RestController
@RequestMapping("/api/products")
class ProductController {

	private static final Map<Long, String> PRODUCTS = Map.of(1L, "Teapot", 2L, "Kettle", 3L, "Mug");

	@GetMapping
	List<Map<String, Object>> list() {
		return PRODUCTS.entrySet().stream()
			.sorted(Map.Entry.comparingByKey())
			.map((product) -> Map.<String, Object>of("id", product.getKey(), "name", product.getValue()))
			.toList();
	}

	@GetMapping("/{id}")
	ResponseEntity<Map<String, Object>> get(@PathVariable long id) {
		String name = PRODUCTS.get(id);
		return (name != null) ? ResponseEntity.ok(Map.of("id", id, "name", name)) : ResponseEntity.notFound().build();
	}

}
