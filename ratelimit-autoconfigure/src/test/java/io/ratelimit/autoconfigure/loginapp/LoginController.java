package io.ratelimit.autoconfigure.loginapp;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import io.ratelimit.autoconfigure.web.LoginOutcome;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

@RestController
class LoginController {

	/** The one password every login accepts. */
	static final String PASSWORD = "open-sesame";

	/**
	 * Logins of each body shape, one path each so that each has buckets of its own. The body
	 * is taken whole, as any body the application accepts (padded, nested, chunked, a form).
	 */
	@PostMapping({ "/api/login", "/api/login/padded", "/api/login/nested", "/api/login/chunked",
			"/api/login/large-form", "/api/login/query-and-body", "/api/login/repeated", "/api/login/names",
			"/api/login/media-type", "/api/login/alias", "/api/login/numbers" })
	ResponseEntity<String> login(@RequestBody(required = false) String body) {
		return answer(body);
	}

	/** Serves every method: a PUT with the same body logs in as well as a POST. */
	@RequestMapping("/api/signin")
	ResponseEntity<String> signin(@RequestBody(required = false) String body) {
		return answer(body);
	}

	/** Another handler on the login's path, under a condition: without it, PUT is the login's. */
	@PutMapping(path = "/api/signin", headers = "X-Legacy")
	ResponseEntity<String> legacySignin() {
		return ResponseEntity.status(HttpStatus.GONE).build();
	}

	@PostMapping("/api/login/callable")
	Callable<ResponseEntity<String>> callable(@RequestBody(required = false) String body) {
		return () -> answer(body);
	}

	@PostMapping("/api/login/deferred")
	DeferredResult<ResponseEntity<String>> deferred(@RequestBody(required = false) String body) {
		DeferredResult<ResponseEntity<String>> result = new DeferredResult<>();
		CompletableFuture.runAsync(() -> result.setResult(answer(body)));
		return result;
	}

	@PostMapping("/api/login/future")
	CompletableFuture<ResponseEntity<String>> future(@RequestBody(required = false) String body) {
		return CompletableFuture.supplyAsync(() -> answer(body));
	}

	/** Redirects with 303 on success, through the Servlet 6.1 method that names the status. */
	@PostMapping("/api/login/see-other")
	void seeOther(@RequestBody(required = false) String body, HttpServletResponse response) throws Exception {
		if (isCorrect(body)) {
			response.sendRedirect("/home", HttpServletResponse.SC_SEE_OTHER);
		}
		else {
			response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
		}
	}

	/** Redirects either way, as form logins do, and says which it was. */
	@PostMapping("/api/login/signalled")
	void signalled(@RequestBody(required = false) String body, HttpServletRequest request,
			HttpServletResponse response) throws Exception {
		if (isCorrect(body)) {
			LoginOutcome.succeeded(request);
			response.sendRedirect("/home");
		}
		else {
			response.sendRedirect("/login?error");
		}
	}

	/** Answers a success with a page larger than the limiter holds back. */
	@PostMapping("/api/login/large-page")
	ResponseEntity<String> largePage(@RequestBody(required = false) String body) {
		return isCorrect(body) ? ResponseEntity.ok(LARGE_PAGE) : answer(body);
	}

	static final String LARGE_PAGE = "welcome ".repeat(1024);

	private static boolean isCorrect(String body) {
		return body != null && body.contains(PASSWORD);
	}

	private static ResponseEntity<String> answer(String body) {
		return ResponseEntity.status(isCorrect(body) ? HttpStatus.OK : HttpStatus.UNAUTHORIZED)
			.body("received " + ((body != null) ? body.length() : 0));
	}

}
