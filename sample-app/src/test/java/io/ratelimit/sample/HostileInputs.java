package io.ratelimit.sample;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random and hostile values for the parts of a request the limiter reads: the path, the
 * forwarding headers, {@code Authorization}, {@code X-API-Key} and the login body. Every
 * value is a string of chars below 256, sent as those bytes by {@link RawExchange}.
 * <p>
 * One seed reproduces a whole run. None of the identity values is a credential the
 * application accepts: tokens are forged, expired or malformed, keys unknown, revoked or
 * mangled, so a request carrying them must be limited by its network identity alone.
 */
final class HostileInputs {

	private static final String[] TEMPLATE_PATHS = { "/api/products", "/api/products/", "/api/orders/",
			"/api/login", "/api/orders", "/actuator/health", "/actuator/ratelimit", "/", "" };

	private static final String[] ODD_ADDRESSES = { "2130706433", "0x7f.0.0.1", "1.2.3", "127.1", "010.0.0.1",
			"1.2.3.4.5", "256.1.1.1", "-1.2.3.4", "1.2.3.4/8", "localhost", "example.com", "unknown", "_hidden",
			"::1", "[::1]", "[::1]:443", "::ffff:10.0.0.1", "fe80::1%eth0", "[fe80::1%25eth0]:80", "::", "[1.2.3.4]",
			"1.2.3.4:", "1.2.3.4:99999", "1.2.3.4:-1", "[::1", "::1]", ":::", "1::2::3", "12345::", "[]", "", " ",
			"\"1.2.3.4\"", "\"[::1]\"", "for=1.2.3.4", "*", "10.0.0.1", "192.168.0.1", "127.0.0.2", "0.0.0.0",
			"255.255.255.255", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1:2:3:4:5:6:7:8:9", "::1.2.3.4.5" };

	private static final List<String> ACTIVE_KEYS = List.of("demo-acme-key-0001", "demo-globex-key-0001");

	private final SplittableRandom random;

	private final List<String> invalidTokens;

	/**
	 * Creates the inputs of one run.
	 * @param seed the seed of the run
	 * @param invalidTokens well-formed bearer tokens the application must not accept
	 * (expired, not yet valid, signed with another key), mixed into {@code Authorization}
	 */
	HostileInputs(long seed, List<String> invalidTokens) {
		this.random = new SplittableRandom(seed);
		this.invalidTokens = List.copyOf(invalidTokens);
	}

	/** Any chars below 256: control characters, CR, LF, NUL and obs-text included. */
	String bytes(int maxLength) {
		StringBuilder text = new StringBuilder();
		int length = this.random.nextInt(maxLength + 1);
		for (int i = 0; i < length; i++) {
			text.append((char) this.random.nextInt(256));
		}
		return text.toString();
	}

	/** Visible ASCII and spaces. */
	String printable(int maxLength) {
		StringBuilder text = new StringBuilder();
		int length = this.random.nextInt(maxLength + 1);
		for (int i = 0; i < length; i++) {
			text.append((char) (0x20 + this.random.nextInt(0x5f)));
		}
		return text.toString();
	}

	/** Something shaped like an address, or almost. */
	String address() {
		return switch (this.random.nextInt(6)) {
			case 0 -> ODD_ADDRESSES[this.random.nextInt(ODD_ADDRESSES.length)];
			case 1 -> ipv4();
			case 2 -> ipv6();
			case 3 -> ipv4() + ":" + this.random.nextInt(70000);
			case 4 -> "[" + ipv6() + "]" + (this.random.nextBoolean() ? ":" + this.random.nextInt(70000) : "");
			default -> mutate(ODD_ADDRESSES[this.random.nextInt(ODD_ADDRESSES.length)]);
		};
	}

	/** An {@code X-Forwarded-For} value: a list of nodes with odd separators, or garbage. */
	String forwardedFor() {
		if (this.random.nextInt(8) == 0) {
			return bytes(60);
		}
		int count = (this.random.nextInt(10) == 0) ? 200 + this.random.nextInt(300) : 1 + this.random.nextInt(6);
		StringBuilder value = new StringBuilder();
		for (int i = 0; i < count; i++) {
			if (i > 0) {
				value.append(pick(",", ", ", " , ", ",,", ", ,", ";", "\t,"));
			}
			value.append(address());
		}
		return maybeMutate(value.toString());
	}

	/** A {@code Forwarded} value (RFC 7239), well formed or not. */
	String forwarded() {
		if (this.random.nextInt(8) == 0) {
			return bytes(60);
		}
		int count = (this.random.nextInt(10) == 0) ? 100 + this.random.nextInt(150) : 1 + this.random.nextInt(4);
		StringBuilder value = new StringBuilder();
		for (int i = 0; i < count; i++) {
			if (i > 0) {
				value.append(pick(",", ", ", ";", " ,"));
			}
			value.append(forwardedElement());
		}
		return maybeMutate(value.toString());
	}

	private String forwardedElement() {
		String node = address();
		String forValue = switch (this.random.nextInt(5)) {
			case 0 -> node;
			case 1 -> "\"" + node + "\"";
			case 2 -> "\"" + node;
			case 3 -> "\"" + node.replace(".", "\\.") + "\"";
			default -> "\"[" + ipv6() + "]:" + pick("80", "_a", "_", "x", "123456") + "\"";
		};
		String name = pick("for", "For", "FOR", "fOr", " for", "for ", "by", "");
		String element = name + "=" + forValue;
		return switch (this.random.nextInt(6)) {
			case 0 -> element + ";proto=" + pick("http", "https", "\"http\"", "");
			case 1 -> "by=" + address() + ";" + element + ";host=\"" + printable(10) + "\"";
			case 2 -> element + ";" + element;
			case 3 -> element + ";" + printable(8) + "=" + printable(8);
			default -> element;
		};
	}

	/** An {@code Authorization} value that is no valid credential of the application. */
	String authorization() {
		return switch (this.random.nextInt(12)) {
			case 0 -> "Bearer " + this.invalidTokens.get(this.random.nextInt(this.invalidTokens.size()));
			case 1 -> "Bearer " + mutate(this.invalidTokens.get(this.random.nextInt(this.invalidTokens.size())));
			case 2 -> "Bearer " + jwtShaped();
			case 3 -> pick("Bearer", "Bearer ", "Bearer  x", "bearer x.y.z", "BEARER x.y.z", "Bearer a b",
					"Bearer a.b.c, Bearer d.e.f", "Bearer ====", "Bearer \"a.b.c\"", "Bearer .", "Bearer ..",
					"Token a.b.c", "Bearer=a.b.c", "Bearer\ta.b.c");
			case 4 -> "Bearer " + printable(120);
			case 5 -> "Bearer " + bytes(80);
			case 6 -> "Basic " + base64(printable(40).getBytes(StandardCharsets.ISO_8859_1));
			case 7 -> "Basic " + pick("", "=", "!!!", "YWRtaW4=", base64("admin:wrong".getBytes(StandardCharsets.UTF_8)),
					base64("admin".getBytes(StandardCharsets.UTF_8)), base64(":".getBytes(StandardCharsets.UTF_8)));
			case 8 -> "Bearer " + "a".repeat(500 + this.random.nextInt(5000));
			case 9 -> "Bearer " + jwtShaped() + "." + jwtShaped();
			case 10 -> pick("Digest x", "Negotiate ", "Bearer\u0000x.y.z", "\u00ff\u00fe", "Bearer \u00e9.\u00e9.\u00e9");
			default -> bytes(100);
		};
	}

	/** An {@code X-API-Key} value that is no active key of the application. */
	String apiKey() {
		String key = anyApiKey();
		// A mutation may undo itself, and Tomcat strips the whitespace around a value.
		String asReceived = key.replaceAll("^[ \t]+|[ \t]+$", "");
		return ACTIVE_KEYS.contains(asReceived) ? "demo-revoked-key-0001" : key;
	}

	/** An identity header or a combination of them, none of which is a valid credential. */
	List<String[]> identityHeaders() {
		List<String[]> headers = new ArrayList<>();
		int kinds = 1 + this.random.nextInt(7);
		if ((kinds & 1) != 0) {
			headers.add(new String[] { pick("X-Forwarded-For", "X-Forwarded-For", "Forwarded", "X-Real-IP",
					"x-forwarded-for", "Client-IP", "True-Client-IP", "X-Client-IP", "X-Originating-IP"),
					chance(2) ? forwardedFor() : forwarded() });
		}
		if ((kinds & 2) != 0) {
			headers.add(new String[] { "Authorization", authorization() });
		}
		if ((kinds & 4) != 0) {
			headers.add(new String[] { pick("X-API-Key", "x-api-key"), apiKey() });
		}
		return headers;
	}

	private String anyApiKey() {
		return switch (this.random.nextInt(8)) {
			case 0 -> "demo-revoked-key-0001";
			case 1 -> mutate("demo-acme-key-0001");
			case 2 -> pick("DEMO-ACME-KEY-0001", "demo-acme-key-0002", "demo-acme-key-000", "demo-acme-key-00011",
					"demo-acme-key-0001,demo-acme-key-0001", "demo-acme-key-0001\u0000", "demo-acme\u0000-key-0001",
					"demo-acme-key-0001\u00a0", "\"demo-acme-key-0001\"", "'demo-acme-key-0001'", "*", "%",
					"demo-acme-key-0001;");
			case 3 -> "k".repeat(255 + this.random.nextInt(3));
			case 4 -> printable(300);
			case 5 -> bytes(80);
			case 6 -> "x".repeat(4000 + this.random.nextInt(3000));
			default -> printable(40).replace(' ', '-');
		};
	}

	/** A request target: templates with odd variables, encodings, dot segments, long paths. */
	String path() {
		String target = switch (this.random.nextInt(10)) {
			case 0 -> "/api/products/" + segment();
			case 1 -> "/api/orders/" + segment() + "/items";
			case 2 -> "/api/orders/" + segment() + "/" + segment();
			case 3 -> pick(TEMPLATE_PATHS) + segment();
			case 4 -> "/" + segment() + "/" + segment() + "/" + segment();
			case 5 -> pick(TEMPLATE_PATHS) + pick(";jsessionid=" + printable(10), "/.", "/..", "//", "/./.",
					"%2e%2e", "/%2e%2e/", "%2F", "%5C", "%00", "%", "%zz", "%c0%ae", "\\", "/*", "?" + printable(30),
					"#" + printable(5), "?%zz=%", ";", "%3b", "~", "%7e");
			case 6 -> "/" + bytes(40);
			case 7 -> "/api/products/" + "9".repeat(1 + this.random.nextInt(400));
			case 8 -> pick("*", "", "http://evil.example/api/products", "//evil.example/api/products", "api/products",
					"/" + "a/".repeat(2000), "/api/products?" + "a=b&".repeat(1500), "/\u00e9", "/%e9",
					"/api/products/%ed%a0%80", "/api/products/\u00c3\u00a9");
			default -> "/api/" + segment() + (this.random.nextBoolean() ? "?" + printable(20) : "");
		};
		return maybeMutate(target);
	}

	private String segment() {
		return switch (this.random.nextInt(7)) {
			case 0 -> String.valueOf(this.random.nextLong());
			case 1 -> printable(12);
			case 2 -> pick("..", ".", "%2e", "%2e%2e", "%2f", "%252e", "%", "%%", "-", "0x1", "1e9", "NaN", "",
					"9223372036854775808", "-0", "+1", "%31", "%0a", "%0d%0a", "\u00ff");
			case 3 -> percentEncoded(bytes(6));
			case 4 -> bytes(8);
			case 5 -> String.valueOf(this.random.nextInt(10));
			default -> printable(6).replace(' ', '_');
		};
	}

	/** A login body: random JSON, JSON of the wrong shape, deep nesting, invalid UTF-8, or not JSON. */
	byte[] loginBody() {
		String json = switch (this.random.nextInt(10)) {
			case 0 -> "{\"username\":" + jsonValue(3) + ",\"password\":" + jsonValue(3) + "}";
			case 1 -> jsonValue(4);
			case 2 -> "[".repeat(1 + this.random.nextInt(3000)) + "]".repeat(this.random.nextInt(3000));
			case 3 -> "{\"a\":".repeat(1 + this.random.nextInt(2000)) + "1" + "}".repeat(this.random.nextInt(2000));
			case 4 -> "{\"username\":\"alice\",\"password\":\"" + printable(20).replace("\"", "").replace("\\", "")
					+ "\",\"username\":\"" + printable(10).replace("\"", "").replace("\\", "") + "\"}";
			case 5 -> "{\"username\":\"" + "u".repeat(this.random.nextInt(20_000)) + "\"}";
			case 6 -> pick("", "null", "{", "}", "{\"username\"", "{\"username\":}", "1e999999999",
					"{\"username\":1e999999}", "\ufeff{}", "{'username':'alice'}", "{\"username\":\"\\ud800\"}",
					"{\"username\":\"\\u0000\"}", "{\"password\":null}", "{} {}", "{\"username\":[1,2,3]}");
			case 7 -> printable(200);
			default -> null;
		};
		if (json == null) {
			byte[] garbage = new byte[this.random.nextInt(300)];
			this.random.nextBytes(garbage);
			return garbage;
		}
		return json.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The {@code Content-Type} of a login body: JSON mostly, sometimes not. Never a wildcard
	 * such as {@code *}{@code /*}: Spring MVC answers 500 to that on any {@code @RequestBody}
	 * handler, limiter or not (spring-projects/spring-framework#27957).
	 */
	String loginContentType() {
		String type = pick("application/json", "application/json", "application/json", "application/json;charset=UTF-8",
				"application/json; charset=utf-16", "application/json; charset=bogus", "text/plain",
				"application/x-www-form-urlencoded", "application/json;" + printable(10), bytes(20));
		return type.contains("*") ? "application/json" : type;
	}

	private String jsonValue(int depth) {
		int kind = this.random.nextInt((depth > 0) ? 8 : 5);
		return switch (kind) {
			case 0 -> "null";
			case 1 -> String.valueOf(this.random.nextBoolean());
			case 2 -> pick(String.valueOf(this.random.nextLong()), "1e308", "-1e-400", "1" + "0".repeat(500), "0.0",
					"-0");
			case 3 -> "\"" + jsonString() + "\"";
			case 4 -> "\"alice\"";
			case 5, 6 -> {
				StringBuilder object = new StringBuilder("{");
				int fields = this.random.nextInt(4);
				for (int i = 0; i < fields; i++) {
					object.append((i > 0) ? "," : "")
						.append('"')
						.append(pick("username", "password", jsonString()))
						.append("\":")
						.append(jsonValue(depth - 1));
				}
				yield object.append('}').toString();
			}
			default -> {
				StringBuilder array = new StringBuilder("[");
				int items = this.random.nextInt(4);
				for (int i = 0; i < items; i++) {
					array.append((i > 0) ? "," : "").append(jsonValue(depth - 1));
				}
				yield array.append(']').toString();
			}
		};
	}

	private String jsonString() {
		StringBuilder text = new StringBuilder();
		int length = this.random.nextInt(20);
		for (int i = 0; i < length; i++) {
			int c = this.random.nextInt(0x3000);
			if (c == '"' || c == '\\' || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
				text.append(pick("\\\"", "\\\\", "\\n", "\\u0000", "\\ud83d\\ude00", "\\u"));
			}
			else {
				text.append((char) c);
			}
		}
		return text.toString();
	}

	private String jwtShaped() {
		String header = pick("{\"alg\":\"none\"}", "{\"alg\":\"HS256\"}", "{\"alg\":\"RS256\",\"kid\":\"x\"}",
				"{\"alg\":\"HS256\",\"crit\":[\"exp\"]}", "{\"alg\":\"HS256\",\"jku\":\"http://127.0.0.1:1/\"}",
				"{\"alg\":\"HS512\"}", "{\"alg\":\"dir\",\"enc\":\"A128GCM\"}", "{}", "[]", "null",
				"{\"alg\":" + jsonValue(2) + "}", printable(20));
		String payload = pick("{\"sub\":\"mallory\",\"project_id\":\"acme\"}",
				"{\"sub\":\"alice\",\"exp\":99999999999,\"project_id\":\"acme\"}", "{\"sub\":" + jsonValue(2) + "}",
				"{\"sub\":\"x\",\"project_id\":" + jsonValue(2) + "}", "{\"exp\":\"soon\"}", jsonValue(2));
		return base64Url(header) + "." + base64Url(payload) + "." + pick("", base64Url(printable(32)), "!!", "....");
	}

	private String ipv4() {
		StringBuilder address = new StringBuilder();
		for (int i = 0; i < 4; i++) {
			address.append((i > 0) ? "." : "");
			int octet = (this.random.nextInt(10) == 0) ? this.random.nextInt(1000) : this.random.nextInt(256);
			address.append((this.random.nextInt(20) == 0) ? "0" + octet : String.valueOf(octet));
		}
		return address.toString();
	}

	private String ipv6() {
		StringBuilder address = new StringBuilder();
		int groups = 1 + this.random.nextInt(9);
		int gap = this.random.nextInt(groups + 2);
		for (int i = 0; i < groups; i++) {
			address.append((i == gap) ? "::" : (i > 0) ? ":" : "");
			address.append(Integer.toHexString(this.random.nextInt((this.random.nextInt(10) == 0) ? 0x100000 : 0x10000)));
		}
		if (this.random.nextInt(8) == 0) {
			address.append(":").append(ipv4());
		}
		if (this.random.nextInt(8) == 0) {
			address.append("%").append(pick("eth0", "1", "", "%25"));
		}
		return address.toString();
	}

	private String maybeMutate(String value) {
		return (this.random.nextInt(5) == 0) ? mutate(value) : value;
	}

	/** Flips, inserts or deletes a few chars. */
	String mutate(String value) {
		StringBuilder mutated = new StringBuilder(value);
		int edits = 1 + this.random.nextInt(3);
		for (int i = 0; i < edits; i++) {
			int at = (mutated.length() == 0) ? 0 : this.random.nextInt(mutated.length());
			char c = (char) ((this.random.nextBoolean()) ? 0x20 + this.random.nextInt(0x5f) : this.random.nextInt(256));
			switch (this.random.nextInt(3)) {
				case 0 -> mutated.insert(at, c);
				case 1 -> {
					if (at < mutated.length()) {
						mutated.setCharAt(at, c);
					}
				}
				default -> {
					if (at < mutated.length()) {
						mutated.deleteCharAt(at);
					}
				}
			}
		}
		return mutated.toString();
	}

	private String percentEncoded(String text) {
		StringBuilder encoded = new StringBuilder();
		for (int i = 0; i < text.length(); i++) {
			encoded.append(String.format("%%%02X", (int) text.charAt(i)));
		}
		return encoded.toString();
	}

	String pick(String... options) {
		return options[this.random.nextInt(options.length)];
	}

	boolean chance(int oneIn) {
		return this.random.nextInt(oneIn) == 0;
	}

	private static String base64(byte[] bytes) {
		return Base64.getEncoder().encodeToString(bytes);
	}

	private static String base64Url(String json) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
	}

}
