package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Forwarded} behind a trusted proxy over real HTTP: the test client is the proxy on
 * loopback, sending what a client wrote followed by the element the proxy appends for it.
 */
@SpringBootTest(classes = TestShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128",
				"ratelimit.client-ip.header=forwarded", "spring.jpa.hibernate.ddl-auto=validate",
				"spring.jpa.open-in-view=false" })
@DirtiesContext
class ForwardedHeaderEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	private static final AtomicInteger clients = new AtomicInteger();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	/**
	 * Two clients behind the same proxy each leave a quote open; the first drains its bucket
	 * ({@code GET /api/products} allows 4), the second must still have its own.
	 */
	@ParameterizedTest(name = "[{index}] client writes {0}")
	@ValueSource(strings = { "for=\"", "for=\"198.51.100.250", "for=\"x\\", "for=\"x\\\"", "for=1.2.3.4;ext=\"a" })
	void getWhenClientLeavesQuoteOpenThenKeyedByAddressTheProxyAppended(String clientPart) {
		String drained = nextClient();
		for (int i = 0; i < 4; i++) {
			assertThat(get(clientPart, drained).statusCode()).isEqualTo(200);
		}
		assertThat(get(clientPart, drained).statusCode()).isEqualTo(429);

		HttpResponse<String> other = get(clientPart, nextClient());

		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(other.headers().firstValue("RateLimit")).hasValue("\"GET /api/products\";r=3;t=1");
	}

	@ParameterizedTest(name = "[{index}] client writes {0}")
	@ValueSource(strings = { "for=\"", "for=\"x\\" })
	void getWhenProxyAppendsLineAfterOpenQuoteThenKeyedByAddressTheProxyAppended(String clientPart) {
		String drained = nextClient();
		for (int i = 0; i < 4; i++) {
			assertThat(getTwoLines(clientPart, drained).statusCode()).isEqualTo(200);
		}
		assertThat(getTwoLines(clientPart, drained).statusCode()).isEqualTo(429);

		assertThat(getTwoLines(clientPart, nextClient()).statusCode()).isEqualTo(200);
	}

	private static String nextClient() {
		return "198.51.100." + clients.incrementAndGet();
	}

	private HttpResponse<String> get(String clientPart, String client) {
		return new Http(this.port).get("/api/products", "Forwarded", clientPart + ", for=\"" + client + ":4711\"");
	}

	private HttpResponse<String> getTwoLines(String clientPart, String client) {
		return new Http(this.port).get("/api/products", "Forwarded", clientPart, "Forwarded", "for=" + client);
	}

}
