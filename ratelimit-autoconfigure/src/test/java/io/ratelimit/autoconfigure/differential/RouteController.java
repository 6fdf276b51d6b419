package io.ratelimit.autoconfigure.differential;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The routes whose templates the differential test tries to confuse: variables, a
 * variable followed by a literal segment, a literal-and-variable segment, a catch-all
 * capture, several methods on one path, content-type and accept conditions, a mapping
 * without a method restriction, and literals a template must percent-escape.
 */
@RestController
class RouteController {

	@GetMapping("/api/users/{id}")
	String user(@PathVariable String id) {
		return "user";
	}

	@PutMapping("/api/users/{id}")
	String replaceUser(@PathVariable String id) {
		return "replaced";
	}

	@DeleteMapping("/api/users/{id}")
	String deleteUser(@PathVariable String id) {
		return "deleted";
	}

	@GetMapping("/api/users/{id}/avatar.{ext}")
	String avatar(@PathVariable String id, @PathVariable String ext) {
		return "avatar";
	}

	@PostMapping("/api/login")
	String login() {
		return "welcome";
	}

	@GetMapping("/api/orders/{id}/items")
	String items(@PathVariable String id) {
		return "items";
	}

	@PostMapping(path = "/api/orders", consumes = "application/json")
	String placeOrder() {
		return "placed";
	}

	@GetMapping(path = "/api/reports/{id}", produces = "text/csv")
	String report(@PathVariable String id) {
		return "report";
	}

	@GetMapping("/api/products")
	String products() {
		return "products";
	}

	@GetMapping("/api/files/{*rest}")
	String file(@PathVariable String rest) {
		return "file";
	}

	@GetMapping("/api/caf\u00e9")
	String cafe() {
		return "caf\u00e9";
	}

	@GetMapping("/api/tags/a b|[c]/{id}")
	String tag(@PathVariable String id) {
		return "tag";
	}

	@RequestMapping("/api/any")
	String any() {
		return "any";
	}

}
