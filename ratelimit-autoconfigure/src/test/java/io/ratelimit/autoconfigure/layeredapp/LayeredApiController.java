package io.ratelimit.autoconfigure.layeredapp;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class LayeredApiController {

	@GetMapping("/api/repos/{id}")
	String repo(@PathVariable String id) {
		return "repo " + id;
	}

	@PostMapping("/api/repos/{id}/issues")
	String issue(@PathVariable String id) {
		return "issue in " + id;
	}

	@PostMapping("/api/repos/{id}/comments")
	String comment(@PathVariable String id) {
		return "comment in " + id;
	}

	@PatchMapping("/api/user")
	String user() {
		return "user";
	}

	@GetMapping("/api/status")
	String status() {
		return "ok";
	}

}
