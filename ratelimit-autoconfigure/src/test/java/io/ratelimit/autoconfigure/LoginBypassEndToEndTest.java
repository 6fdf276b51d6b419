package io.ratelimit.autoconfigure;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import io.ratelimit.autoconfigure.loginapp.LoginApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ways around a login's account bucket, tried over HTTP as an attacker would: guesses
 * at one account's password, each from an address of its own behind a trusted proxy, in
 * every shape of request the application accepts. Whatever the shape, no more attempts
 * reach the application than one bucket holds (10: every login's policy refills one
 * attempt every 10 seconds into a bucket of 10), where a per-address charge would let all
 * of them through. Each shape has a login path of its own, so each starts on full buckets.
 */
@SpringBootTest(classes = LoginApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128", "ratelimit.policy.default-rps=0.1",
				"ratelimit.burst-factor=100",
				"ratelimit.login.endpoints=POST /api/login=username, POST /api/login/padded=username, "
						+ "POST /api/login/nested=username, POST /api/login/chunked=username, "
						+ "POST /api/login/large-form=username, POST /api/login/query-and-body=username, "
						+ "POST /api/login/repeated=username, POST /api/login/names=username, "
						+ "POST /api/signin=username, POST /api/login/callable=username, "
						+ "POST /api/login/deferred=username, POST /api/login/future=username, "
						+ "POST /api/login/see-other=username, POST /api/login/signalled=username, "
						+ "POST /api/login/large-page=username, POST /auth/login=username, "
						+ "POST /api/login/media-type=username, POST /api/login/alias=username, "
						+ "POST /api/login/numbers=username",
				"ratelimit.login.max-body-size=1KB", "ratelimit.login.max-json-depth=4",
				"ratelimit.login.success-statuses=200-299,303", "ratelimit.login.max-response-buffer=1KB",
				"ratelimit.login.identifier-normalization=nfkc-casefold",
				"ratelimit.login.device.secret=a-device-token-secret-for-tests",
				"ratelimit.login.device.transport=header", "spring.jpa.open-in-view=false",
				"spring.flyway.enabled=false" })
@DirtiesContext
class LoginBypassEndToEndTest {

	/** Attempts of each attack, one address each. */
	static final int ATTEMPTS = 256;

	/** What one bucket of a login holds. */
	static final int BUCKET = 10;

	private static final String PASSWORD = "open-sesame";

	private static final String JSON = "application/json";

	private static final String FORM = "application/x-www-form-urlencoded";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger addresses = new AtomicInteger();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	private static String newAddress() {
		int n = addresses.incrementAndGet();
		return "198.51." + (n / 250) + "." + (1 + n % 250);
	}

	private HttpRequest.Builder post(String target, String contentType, String body) {
		return request(target, contentType).POST(HttpRequest.BodyPublishers.ofString(body));
	}

	private HttpRequest.Builder request(String target, String contentType) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + target))
			.header("Content-Type", contentType)
			.header("X-Forwarded-For", newAddress());
	}

	private HttpResponse<String> send(HttpRequest.Builder request) {
		return Http.send(request.build());
	}

	/** Sends the attack, a fresh address each attempt, and counts what the application answered. */
	private int admitted(IntFunction<HttpRequest.Builder> attempt) {
		int admitted = 0;
		for (int i = 0; i < ATTEMPTS; i++) {
			int status = send(attempt.apply(i)).statusCode();
			assertThat(status).isIn(401, 429);
			admitted += (status == 401) ? 1 : 0;
		}
		return admitted;
	}

	private static String credentials(String username) {
		return "{\"username\":\"" + username + "\",\"password\":\"guess\"}";
	}

	@Test
	void loginWhenPlainJsonFromManyAddressesThenTheAccountsBucketStopsThem() {
		assertThat(admitted((i) -> post("/api/login", JSON, credentials("victim")))).isEqualTo(BUCKET);
	}

	@Test
	void loginWhenJsonPaddedPastTheReadLimitThenAllSuchAttemptsShareOneBucket() {
		String padded = credentials("victim") + " ".repeat(16_400);

		assertThat(admitted((i) -> post("/api/login/padded", JSON, padded))).isEqualTo(BUCKET);
	}

	@Test
	void loginWhenIgnoredFieldNestedTooDeepThenAllSuchAttemptsShareOneBucket() {
		String nested = "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{}}}}},\"username\":\"victim\",\"password\":\"guess\"}";

		assertThat(admitted((i) -> post("/api/login/nested", JSON, nested))).isEqualTo(BUCKET);
	}

	@Test
	void loginWhenFormChunkedWithoutLengthThenTheAccountIsRead() {
		String form = "username=victim&password=guess";

		assertThat(admitted((i) -> request("/api/login/chunked", FORM).POST(
				HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(form)))))
			.isEqualTo(BUCKET);
		// The account's bucket, not a shared one: it is empty for this account only.
		assertThat(send(post("/api/login/chunked", FORM, "username=other&password=guess")).statusCode())
			.isEqualTo(401);
	}

	@Test
	void loginWhenFormLargerThanTheJsonLimitThenTheContainersParametersAreRead() {
		String form = "username=victim&password=guess&padding=" + "x".repeat(20_000);

		assertThat(admitted((i) -> post("/api/login/large-form", FORM, form))).isEqualTo(BUCKET);
		assertThat(send(post("/api/login/large-form", FORM, "username=other&password=guess")).statusCode())
			.isEqualTo(401);
	}

	@Test
	void loginWhenAccountInQueryAndDecoyInBodyThenNotChargedToTheDecoy() {
		assertThat(admitted((i) -> post("/api/login/query-and-body?username=victim", FORM,
				"username=decoy" + i + "&password=guess")))
			.isEqualTo(BUCKET);
	}

	@Test
	void loginWhenFieldRepeatedWithDecoyLastThenNotChargedToTheDecoy() {
		assertThat(admitted((i) -> post("/api/login/repeated", FORM,
				"username=victim&password=guess&username=decoy" + i)))
			.isEqualTo(BUCKET);
		assertThat(admitted((i) -> post("/api/login/repeated", JSON,
				"{\"username\":\"victim\",\"password\":\"guess\",\"username\":\"decoy" + i + "\"}")))
			.isZero();
	}

	@Test
	void loginWhenTwoAccountsNamedAndTheFirstSucceedsThenNothingRefundedAndNoDeviceToken() {
		HttpResponse<String> mine = send(post("/api/login/names", FORM,
				"username=me&password=" + PASSWORD + "&username=victim"));

		assertThat(mine.statusCode()).isEqualTo(200);
		assertThat(mine.headers().firstValue("RateLimit-Device")).isEmpty();
		// Unreadable, so charged to the shared bucket of unreadable attempts, and kept there.
		assertThat(mine.headers().firstValue("RateLimit").orElseThrow())
			.endsWith("\"default identifier\";r=9;t=10");
		HttpResponse<String> again = send(post("/api/login/names", FORM, "username=x&password=y&username=z"));
		assertThat(again.headers().firstValue("RateLimit").orElseThrow())
			.endsWith("\"default identifier\";r=8;t=10");
	}

	@Test
	void loginWhenHandlerServesEveryMethodThenEveryMethodIsChargedAsTheLogin() {
		assertThat(admitted((i) -> request("/api/signin", JSON)
			.method(switch (i % 3) {
				case 0 -> "PUT";
				case 1 -> "PATCH";
				default -> "POST";
			}, HttpRequest.BodyPublishers.ofString(credentials("victim"))))).isEqualTo(BUCKET);
		HttpResponse<String> put = send(request("/api/signin", JSON)
			.PUT(HttpRequest.BodyPublishers.ofString(credentials("someone"))));
		assertThat(put.headers().firstValue("RateLimit-Policy").orElseThrow()).startsWith("\"default\"");
		assertThat(put.headers().firstValue("RateLimit").orElseThrow()).contains("identifier");
	}

	@Test
	void loginWhenNonStandardMethodSentToAHandlerOfEveryMethodThenChargedAsTheLogin() {
		assertThat(admitted((i) -> request("/api/signin", JSON).method("PROPFIND",
				HttpRequest.BodyPublishers.ofString(credentials("propfind-victim")))))
			.isEqualTo(BUCKET);
	}

	@Test
	void loginWhenGetWithoutBodySentToAHandlerOfEveryMethodThenOnlyItsClientIsCharged() {
		for (int i = 0; i < BUCKET * 3; i++) {
			HttpResponse<String> get = send(request("/api/signin", JSON).GET());

			assertThat(get.statusCode()).isEqualTo(401);
			assertThat(get.headers().firstValue("RateLimit")).hasValue("\"default\";r=9;t=10");
		}
	}

	@Test
	void loginWhenContentTypeOnlyStartsLikeAFormThenTheBodyIsReadAsTheApplicationReadsIt() {
		String json = "application/x-www-form-urlencoded+json";

		// The attacker's own login, with the victim in the query: no refund and no token for either.
		HttpResponse<String> mine = send(post("/api/login/media-type?username=victim", json,
				"{\"username\":\"me\",\"password\":\"" + PASSWORD + "\"}"));
		assertThat(mine.statusCode()).isEqualTo(200);
		assertThat(mine.headers().firstValue("RateLimit-Device")).isEmpty();

		assertThat(admitted((i) -> post("/api/login/media-type?username=decoy" + i, json, credentials("victim"))))
			.isEqualTo(BUCKET - 1);
	}

	@Test
	void loginWhenJsonNamesTheAccountUnderAnotherFieldThenTheQueryValueIsNotCharged() {
		assertThat(admitted((i) -> post("/api/login/alias?username=decoy" + i, JSON,
				"{\"user\":\"victim\",\"password\":\"guess\"}")))
			.isEqualTo(BUCKET);
	}

	@Test
	void loginWhenNumericAccountSpelledInManyWaysThenOneBucket() {
		String[] spellings = { "1", "1.0", "10E-1", "\"1\"", "1.000" };

		assertThat(admitted((i) -> post("/api/login/numbers", JSON,
				"{\"username\":" + spellings[i % spellings.length] + ",\"password\":\"guess\"}")))
			.isEqualTo(BUCKET);
	}

	@Test
	void loginWhenServedByAFilterThenTheAccountsBucketApplies() {
		assertThat(admitted((i) -> post(LoginApplication.FILTER_LOGIN, FORM, "username=victim&password=guess")))
			.isEqualTo(BUCKET);
	}

	@Test
	void loginWhenHandlerIsAsynchronousThenFailuresKeepTheirCharge() {
		for (String kind : new String[] { "callable", "deferred", "future" }) {
			assertThat(admitted((i) -> post("/api/login/" + kind, JSON, credentials("victim")))).as(kind)
				.isEqualTo(BUCKET);
		}
	}

	@Test
	void loginWhenAsynchronousHandlerSucceedsThenRefundedWithTheWholeBodyButNoDeviceToken() {
		String body = "{\"username\":\"owner\",\"password\":\"" + PASSWORD + "\"}";
		for (int i = 0; i < BUCKET + 2; i++) {
			HttpResponse<String> response = send(post("/api/login/deferred", JSON, body));
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("received " + body.length());
			assertThat(response.headers().firstValue("RateLimit-Device")).isEmpty();
		}
	}

	@Test
	void loginWhenSuccessRedirectsWithAStatusThenTheDeviceTokenComesWithTheRedirect() {
		HttpResponse<String> success = send(post("/api/login/see-other", JSON,
				"{\"username\":\"owner\",\"password\":\"" + PASSWORD + "\"}"));

		assertThat(success.statusCode()).isEqualTo(303);
		assertThat(success.headers().firstValue("RateLimit-Device")).isPresent();
	}

	@Test
	void loginWhenApplicationSaysTheOutcomeThenItDecidesWhereTheStatusCannot() {
		HttpResponse<String> success = send(post("/api/login/signalled", JSON,
				"{\"username\":\"owner\",\"password\":\"" + PASSWORD + "\"}"));
		assertThat(success.statusCode()).isEqualTo(302);
		assertThat(success.headers().firstValue("RateLimit-Device")).isPresent();

		int kept = 0;
		for (int i = 0; i < BUCKET + 1; i++) {
			HttpResponse<String> failure = send(post("/api/login/signalled", JSON, credentials("victim")));
			kept += (failure.statusCode() == 302) ? 1 : 0;
			assertThat(failure.headers().firstValue("RateLimit-Device")).isEmpty();
		}
		assertThat(kept).isEqualTo(BUCKET);
	}

	@Test
	void loginWhenSuccessfulPageExceedsTheBufferThenSentWholeWithoutDeviceToken() {
		HttpResponse<String> large = send(post("/api/login/large-page", JSON,
				"{\"username\":\"owner\",\"password\":\"" + PASSWORD + "\"}"));

		assertThat(large.statusCode()).isEqualTo(200);
		assertThat(large.body()).hasSize(8192).startsWith("welcome welcome");
		assertThat(large.headers().firstValue("RateLimit-Device")).isEmpty();
	}

	@Test
	void loginWhenAccountSpelledInOtherWidthOrCaseThenOneBucket() {
		String[] spellings = { "ｖｉｃｔｉｍ２", "VICTIM2", " Victim2 ", "victim２" };

		assertThat(admitted((i) -> post("/api/login", JSON, credentials(spellings[i % spellings.length]))))
			.isEqualTo(BUCKET);
	}

}
