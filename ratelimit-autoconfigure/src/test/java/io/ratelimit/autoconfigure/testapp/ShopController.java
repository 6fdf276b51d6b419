package io.ratelimit.autoconfigure.testapp;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class ShopController {

	private final WidgetRepository widgets;

	ShopController(WidgetRepository widgets) {
		this.widgets = widgets;
	}

	@GetMapping("/api/products")
	String products() {
		return "products";
	}

	@GetMapping("/api/users/{id}")
	String user(@PathVariable String id) {
		return "user " + id;
	}

	@GetMapping("/api/orders/{id}/items")
	String items(@PathVariable String id) {
		return "items of " + id;
	}

	@GetMapping("/api/reports/{id}")
	String report(@PathVariable String id) {
		return "report " + id;
	}

	/**
	 * Answers with the length of the body it received, so tests see that the limiter's
	 * reading ahead leaves the body whole: 200 if the body holds the password
	 * {@value #PASSWORD}, else 401.
	 */
	@PostMapping("/api/login")
	ResponseEntity<String> login(@RequestBody(required = false) String body) {
		boolean correct = body != null && body.contains(PASSWORD);
		return ResponseEntity.status(correct ? HttpStatus.OK : HttpStatus.UNAUTHORIZED)
			.body("received " + ((body != null) ? body.length() : 0));
	}

	private static final String PASSWORD = "open-sesame";

	/** Always fails, so the container forwards the request to its error page. */
	@GetMapping("/api/failures")
	String failure() {
		throw new IllegalStateException("This endpoint always fails");
	}

	/** A route with a character outside the template alphabet: its template is percent-escaped. */
	@GetMapping("/api/caf\u00e9")
	String cafe() {
		return "caf\u00e9";
	}

	/** A route with reserved characters Spring MVC accepts in patterns. */
	@GetMapping("/api/tags/a b|[c]/{id}")
	String tag(@PathVariable String id) {
		return "tag " + id;
	}

	@GetMapping("/api/widgets")
	List<String> widgets() {
		return this.widgets.findAll().stream().map(Widget::getName).toList();
	}

}
