package io.ratelimit.minimal;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** One product as a small JSON record: {@code GET /api/products/{id}}. */
@RestController
class ProductController {

	record Product(long id, String name) {
	}

	@GetMapping("/api/products/{id}")
	ResponseEntity<Product> product(@PathVariable long id) {
		return (id >= 1 && id <= 3) ? ResponseEntity.ok(new Product(id, "Product " + id))
				: ResponseEntity.notFound().build();
	}

}
