package io.ratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;

/**
 * The requests of the differential test: ways of writing a request target or method that
 * the servlet container and Spring MVC read differently, each with the route the stack is
 * known to serve it with (SPEC-HTTP section 4), so that a variant which silently stops
 * exercising what it was written for is noticed.
 */
final class EndpointVariants {

	/**
	 * Reaches the application, but no route serves it: 404, 405 from the lookup, static
	 * resources, OPTIONS answered by Spring MVC itself.
	 */
	static final String NO_ROUTE = "(no route)";

	/** Answered by the container before any filter runs, so the limiter never sees it. */
	static final String CONTAINER = "(container)";

	/** Stands for the server's host and port in absolute-form targets. */
	static final String AUTHORITY = "{authority}";

	private static final String USER = "/api/users/{id}";

	private static final String AVATAR = "/api/users/{id}/avatar.{ext}";

	private static final String LOGIN = "/api/login";

	private static final String ITEMS = "/api/orders/{id}/items";

	private static final String ORDERS = "/api/orders";

	private static final String REPORT = "/api/reports/{id}";

	private static final String PING = "/api/ping";

	private static final String LEGACY = "/api/legacy/{id}";

	private static final String PRODUCTS = "/api/products";

	private static final String FILES = "/api/files/{*rest}";

	private static final String ANY = "/api/any";

	private static final String CAFE = "/api/caf\u00e9";

	private static final String TAG = "/api/tags/a b|[c]/{id}";

	private final List<Variant> variants = new ArrayList<>();

	private EndpointVariants() {
	}

	static List<Variant> all() {
		EndpointVariants corpus = new EndpointVariants();
		corpus.plain();
		corpus.percentEncoding();
		corpus.dotSegments();
		corpus.slashes();
		corpus.pathParameters();
		corpus.caseAndQuery();
		corpus.methods();
		corpus.rejectedByContainer();
		corpus.longAndUnicode();
		corpus.contentNegotiation();
		corpus.viewControllers();
		corpus.catchAllAndMisc();
		corpus.escapedLiterals();
		return List.copyOf(corpus.variants);
	}

	private void plain() {
		add("GET", "/api/users/42", USER);
		add("PUT", "/api/users/42", USER);
		add("DELETE", "/api/users/42", USER);
		add("POST", "/api/login", LOGIN);
		add("GET", "/api/orders/7/items", ITEMS);
		add("GET", "/api/products", PRODUCTS);
		add("GET", "/api/users/42/avatar.png", AVATAR);
		add("GET", "/api/any", ANY);
		add("GET", "/api/files/a", FILES);
	}

	private void percentEncoding() {
		add("GET", "/api/users/%34%32", USER);
		add("GET", "/api/orders/%37/it%65ms", ITEMS);
		add("GET", "/api/%75sers/42", USER);
		add("GET", "/%61pi/products", PRODUCTS);
		add("POST", "/api/log%69n", LOGIN);
		add("GET", "/api/users/42/avatar%2Epng", AVATAR);
		add("GET", "/api/users/%2e", USER);
		add("GET", "/api/users/%2E%2E", USER);
		add("GET", "/api/users/%2e%2e/", NO_ROUTE);
		add("GET", "/api/orders/7/%2e%2e/items", NO_ROUTE);
		add("GET", "/api/%2e/users/42", NO_ROUTE);
		add("GET", "/api/users/%252e%252e", USER);
		add("GET", "/api/users/42%3Bx=1", USER);
		add("GET", "/api/products%3Fx=1", NO_ROUTE);
		add("GET", "/api/users/%2B42", USER);
	}

	private void dotSegments() {
		add("GET", "/api/users/..", USER);
		add("GET", "/api/users/.", USER);
		add("GET", "/api/users/./42", NO_ROUTE);
		add("GET", "/api/./users/42", NO_ROUTE);
		add("GET", "/api/users/42/..", NO_ROUTE);
		add("GET", "/api/x/../users/42", NO_ROUTE);
		add("GET", "/api/users/42/avatar.png/..", NO_ROUTE);
		add("POST", "/api/x/../login", NO_ROUTE);
		add("GET", "/api/files/../users/42", FILES);
		add("GET", "/api/files/%2e%2e/%2e%2e/x", FILES);
	}

	private void slashes() {
		add("GET", "//api/users/42", NO_ROUTE);
		add("GET", "/api//users/42", NO_ROUTE);
		add("GET", "/api/users//42", NO_ROUTE);
		add("GET", "/api/users/42//", NO_ROUTE);
		add("GET", "/api/orders//items", NO_ROUTE);
		add("GET", "/api/users/42/", NO_ROUTE);
		add("POST", "/api/login/", NO_ROUTE);
		add("GET", "/api/products/", NO_ROUTE);
		add("GET", "/api/files//a//b", FILES);
		add("GET", "/api/files/", FILES);
		add("GET", "/api/files", FILES);
	}

	private void pathParameters() {
		add("GET", "/api/users/42;jsessionid=ABC", USER);
		add("POST", "/api/login;a=b", LOGIN);
		add("GET", "/api;x=y/users/42", USER);
		add("GET", "/api/users;x=y/42", USER);
		add("GET", "/api/users/;x=y", NO_ROUTE);
		add("GET", "/;x=y/api/users/42", NO_ROUTE);
		add("GET", "/api/users/42;a=b/avatar.png;c=d", AVATAR);
		add("GET", "/api/orders/7;a/items;b", ITEMS);
		add("GET", "/api/products;jsessionid=ABC", PRODUCTS);
		add("GET", "/api/products;", PRODUCTS);
		add("GET", "/api/files/a;x=1/b", FILES);
	}

	private void caseAndQuery() {
		add("GET", "/API/users/42", NO_ROUTE);
		add("GET", "/api/Users/42", NO_ROUTE);
		add("GET", "/api/PRODUCTS", NO_ROUTE);
		add("GET", "/api/users/42/AVATAR.png", NO_ROUTE);
		add("GET", "/api/users/42?x=1", USER);
		add("GET", "/api/users/42?", USER);
		add("GET", "/api/products?a=1&b=%2F&c=../..", PRODUCTS);
		add("GET", "/api/users/42?/../../api/login", USER);
		add("POST", "/api/login?redirect=/api/users/42", LOGIN);
		add("GET", "/api/login?x=1", NO_ROUTE);
	}

	private void methods() {
		add("HEAD", "/api/users/42", USER);
		add("HEAD", "/api/users/%34%32", USER);
		add("HEAD", "/api/products", PRODUCTS);
		add("HEAD", "/api/files/a/b", FILES);
		add("HEAD", "/api/any", ANY);
		add("HEAD", "/api/login", NO_ROUTE);
		add("OPTIONS", "/api/users/42", NO_ROUTE);
		add("OPTIONS", "/api/login", NO_ROUTE);
		add("OPTIONS", "/api/any", NO_ROUTE);
		add("OPTIONS", "/nowhere", NO_ROUTE);
		add("GET", "/api/login", NO_ROUTE);
		add("POST", "/api/users/42", NO_ROUTE);
		add("PATCH", "/api/users/42", NO_ROUTE);
		add("DELETE", "/api/products", NO_ROUTE);
		add("PUT", "/api/orders/7/items", NO_ROUTE);
		add("PUT", "/api/files/a", NO_ROUTE);
		add("POST", "/api/any", ANY);
		add("PATCH", "/api/any", ANY);
		add("DELETE", "/api/any", ANY);
		add("PUT", "/api/any;x=1", ANY);
		// Non-standard methods: served by the method-less mapping, charged to UNKNOWN.
		add("FOO", "/api/any", ANY);
		add("PROPFIND", "/api/any", ANY);
		add("M-SEARCH", "/api/any", ANY);
		add("get", "/api/any", ANY);
		add("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "/api/any", ANY);
		add("FOO", "/api/users/42", NO_ROUTE);
		add("PROPFIND", "/api/users/42", NO_ROUTE);
		add("get", "/api/users/42", NO_ROUTE);
		add("FOO", "/nowhere", NO_ROUTE);
	}

	private void rejectedByContainer() {
		add("GET", "/api/users/%2F42", CONTAINER);
		add("GET", "/api/users%2F42", CONTAINER);
		add("GET", "/api/users/42%5C", CONTAINER);
		add("GET", "/api/users\\42", CONTAINER);
		add("GET", "/api/users/4%2", CONTAINER);
		add("GET", "/api/users/%ZZ", CONTAINER);
		add("GET", "/api/users/%00", CONTAINER);
		add("GET", "/api/../../etc/passwd", CONTAINER);
		add("GET", "/../api/users/42", CONTAINER);
		add("GET", "/api/users/42#fragment", CONTAINER);
		add("TRACE", "/api/any", CONTAINER);
		add("OPTIONS", "*", CONTAINER);
	}

	private void longAndUnicode() {
		add(new Variant("GET", "/api/users/" + "a".repeat(2000), USER, "GET /api/users/a...a (2000 a)"));
		add(new Variant("GET", "/api/users/" + "%41".repeat(1000), USER, "GET /api/users/%41...%41 (1000 %41)"));
		add(new Variant("GET", "/api/files/" + "a/".repeat(1000), FILES, "GET /api/files/a/.../a/ (1000 segments)"));
		add(new Variant("GET", "/api/users/" + "a".repeat(9000), CONTAINER,
				"GET /api/users/a...a (9000 a, beyond the header size limit)"));
		add("GET", "/api/users/%C3%A9", USER);
		add("GET", "/api/users/%E2%80%AE42", USER);
		add("GET", "/api/%C3%A9/42", NO_ROUTE);
		add("GET", "/api/users/\u00e9", CONTAINER);
		add("GET", "/api/users/%C3", CONTAINER);
		add("GET", "/api/users/%FF", CONTAINER);
	}

	private void contentNegotiation() {
		add(new Variant("POST", "/api/orders", ORDERS, "POST /api/orders as application/json", "Content-Type",
				"application/json"));
		add(new Variant("POST", "/api/orders;x=y", ORDERS, "POST /api/orders;x=y as application/json",
				"Content-Type", "application/json"));
		add(new Variant("POST", "/api/orders", NO_ROUTE, "POST /api/orders as text/plain (415)", "Content-Type",
				"text/plain"));
		add(new Variant("GET", "/api/reports/1", REPORT, "GET /api/reports/1 accepting text/csv", "Accept",
				"text/csv"));
		add(new Variant("GET", "/api/reports/%31", REPORT, "GET /api/reports/%31 accepting anything", "Accept",
				"*/*"));
		add(new Variant("GET", "/api/reports/1", NO_ROUTE, "GET /api/reports/1 accepting only JSON (406)", "Accept",
				"application/json"));
		add(new Variant("GET", "/api/products", PRODUCTS, "GET /api/products accepting only image/png", "Accept",
				"image/png"));
	}

	private void viewControllers() {
		add("GET", "/api/ping", PING);
		add("HEAD", "/api/ping", PING);
		add("POST", "/api/ping", PING);
		add("OPTIONS", "/api/ping", PING);
		add("FOO", "/api/ping", PING);
		add("GET", "/api/p%69ng", PING);
		add("GET", "/api/ping;jsessionid=ABC", PING);
		add("GET", "/api/ping/", NO_ROUTE);
		add("GET", "/API/ping", NO_ROUTE);
		add("GET", "/api/legacy/7", LEGACY);
		add("GET", "/api/legacy/..", LEGACY);
		add("DELETE", "/api/legacy/%37", LEGACY);
		add("GET", "/api/legacy/7/", NO_ROUTE);
		add("GET", "/api/legacy/current", "/api/legacy/current");
		add("GET", "/api/legacy/curr%65nt;x=y", "/api/legacy/current");
		add("GET", "/api/old-products", "/api/old-products");
		add("GET", "/api/old-products?x=1", "/api/old-products");
	}

	private void catchAllAndMisc() {
		add("GET", "/api/files/a/b/c.txt", FILES);
		add("GET", "/api/files/a/./b", FILES);
		add("GET", "/api/files/%2e%2e", FILES);
		add("GET", "http://" + AUTHORITY + "/api/users/42", USER);
		add("GET", "http://" + AUTHORITY + "/api/users/..;x=y", USER);
		add("GET", "http://other.example/api/products", CONTAINER);
		add("GET", "/api/users/42.json", USER);
		add("GET", "/api/users/42/avatar.", AVATAR);
		add("GET", "/api/users/42/avatar.png.gz", AVATAR);
		add("GET", "/api/users/42/avatar", NO_ROUTE);
		add("GET", "/api/orders/%37/items/", NO_ROUTE);
		add("GET", "/", "/");
		add("HEAD", "/", "/");
		add("GET", "/?x=1", "/");
		add("GET", "/;x=y", "/");
		add("GET", "//", NO_ROUTE);
		add("GET", "/index.html", NO_ROUTE);
		add("GET", "/site.css", NO_ROUTE);
		add("GET", "/site.css;x=y", NO_ROUTE);
		add("GET", "/webjars/x.js", NO_ROUTE);
		add("GET", "/error", "/error");
		add("HEAD", "/error", "/error");
		add("FOO", "/error", "/error");
	}

	/** Routes whose literals a template holds only percent-escaped. */
	private void escapedLiterals() {
		add("GET", "/api/caf%C3%A9", CAFE);
		add("GET", "/api/caf%c3%a9", CAFE);
		add("HEAD", "/api/caf%C3%A9", CAFE);
		add("GET", "/api/caf%C3%A9;x=1", CAFE);
		add("GET", "/api/%63af%C3%A9", CAFE);
		add("GET", "/api/caf%C3%A9/", NO_ROUTE);
		add("GET", "/api/caf%C3%89", NO_ROUTE);
		add("GET", "/api/cafe%CC%81", NO_ROUTE);
		add("GET", "/api/caf%25C3%25A9", NO_ROUTE);
		add("POST", "/api/caf%C3%A9", NO_ROUTE);
		add("GET", "/api/caf\u00e9", CONTAINER);
		add("GET", "/api/tags/a%20b%7C%5Bc%5D/7", TAG);
		add("GET", "/api/tags/a%20b%7c%5bc%5d/%37", TAG);
		add("GET", "/api/tags/a+b%7C%5Bc%5D/7", NO_ROUTE);
		add("GET", "/api/tags/a%20b%7C%5Bc%5D/", NO_ROUTE);
		add("GET", "/api/tags/a%20b|[c]/7", CONTAINER);
	}

	private void add(String method, String target, String servedBy) {
		add(new Variant(method, target, servedBy, method + " " + target));
	}

	private void add(Variant variant) {
		this.variants.add(variant);
	}

	/**
	 * One request of the corpus.
	 * @param name the name the test case is reported under
	 * @param method the method, sent as is
	 * @param target the request target, sent as is
	 * @param servedBy the route pattern the stack serves it with, {@link #NO_ROUTE} or
	 * {@link #CONTAINER}
	 * @param headers further header lines as name, value pairs
	 */
	record Variant(String name, String method, String target, String servedBy, List<String> headers) {

		Variant(String method, String target, String servedBy, String name, String... headers) {
			this(name, method, target, servedBy, List.of(headers));
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

}
