package io.ratelimit.sample.adversarial;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.bucket.BucketStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attacks by a client that connects directly to the sample as shipped (no trusted proxy):
 * A2 (spoofed forwarding headers change nothing), A5 (invented API keys are limited as the
 * client's address) and A6 (random paths collapse to one {@code UNKNOWN} bucket per client).
 * Over real HTTP, on PostgreSQL, with the seeded policies; the buckets run on a
 * {@link FakeClock}, so no refill blurs the counts.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(FakeClockBuckets.class)
@DirtiesContext
class UntrustedClientAttacksTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private FakeClock clock;

	@Autowired
	private BucketStore buckets;

	private AttackClient http;

	@BeforeEach
	void freshBuckets() {
		this.http = new AttackClient(this.port);
		this.clock.advance(Duration.ofHours(1));
		assertThat(this.buckets.stats().entries()).isZero();
	}

	/**
	 * A2 from an untrusted peer: no forwarding header, however written, moves the request
	 * out of the peer's bucket ({@code GET /api/orders/*}/items: the default policy, 20).
	 */
	@Test
	void requestWhenUntrustedPeerSpoofsForwardingHeadersThenAllChargedToThePeer() {
		List<String[]> variants = spoofedHeaders(200);
		int admitted = 0;
		for (String[] headers : variants) {
			admitted += (this.http.get("/api/orders/1/items", headers).statusCode() == 200) ? 1 : 0;
		}

		Figures.record("A2 untrusted peer", "%d spoofed header variants: %d admitted (limit %d), %d bucket(s)",
				variants.size(), admitted, 20, this.buckets.stats().entries());
		assertThat(admitted).isEqualTo(20);
		assertThat(this.buckets.stats().entries()).isEqualTo(1);
	}

	private static List<String[]> spoofedHeaders(int count) {
		SplittableRandom random = new SplittableRandom(7);
		List<String[]> variants = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String ip = random.nextInt(1, 224) + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
					+ random.nextInt(1, 255);
			String v6 = "2001:db8:" + Integer.toHexString(random.nextInt(65536)) + "::" + Integer.toHexString(i + 1);
			variants.add(switch (i % 8) {
				case 0 -> new String[] { "X-Forwarded-For", ip };
				case 1 -> new String[] { "X-Forwarded-For", ip + ", " + v6 + ", 127.0.0.1" };
				case 2 -> new String[] { "Forwarded", "for=" + ip + ";proto=https" };
				case 3 -> new String[] { "Forwarded", "for=\"[" + v6 + "]:4711\"" };
				case 4 -> new String[] { "X-Forwarded-For", ip, "X-Forwarded-For", v6 };
				case 5 -> new String[] { "X-Real-IP", ip, "X-Forwarded-For", "unknown, " + ip };
				case 6 -> new String[] { "X-Forwarded-For", ip, "Forwarded", "for=" + ip };
				default -> new String[] { "X-Forwarded-For", "127.0.0.1", "Forwarded", "for=\"[::1]\"" };
			});
		}
		return variants;
	}

	/**
	 * A5: invented API keys are not identities. 10,000 random keys from one address spend
	 * that address's budget on {@code GET /api/products} (20 rps, capacity 40) and no more;
	 * a real key keeps its tenant's budget.
	 */
	@Test
	void requestWhenTenThousandRandomApiKeysFromOneAddressThenLimitedAsThatAddress() throws Exception {
		int keys = 10_000;
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger next = new AtomicInteger();
		long started = System.nanoTime();
		ExecutorService senders = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				done.add(senders.submit(() -> {
					SplittableRandom random = new SplittableRandom(next.get() * 31L + Thread.currentThread().getId());
					byte[] key = new byte[16];
					while (next.getAndIncrement() < keys) {
						for (int b = 0; b < key.length; b++) {
							key[b] = (byte) random.nextInt(256);
						}
						HttpResponse<String> response = this.http.get("/api/products", "X-API-Key",
								"demo-" + HexFormat.of().formatHex(key));
						admitted.addAndGet((response.statusCode() == 200) ? 1 : 0);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			senders.shutdownNow();
		}
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();

		HttpResponse<String> real = this.http.get("/api/products", "X-API-Key", "demo-acme-key-0001");
		Figures.record("A5 fake API-key rotation",
				"%d random keys from one address: %d admitted (address budget %d), %d bucket(s), %d ms", keys,
				admitted.get(), 40, this.buckets.stats().entries() - 1, millis);
		assertThat(admitted.get()).isEqualTo(40);
		assertThat(real.statusCode()).isEqualTo(200);
		assertThat(real.headers().firstValue("RateLimit")).hasValue("\"GET /api/products\";r=199;t=1");
		// One bucket for the address, one for the real key's principal from its second request.
		assertThat(this.http.get("/api/products", "X-API-Key", "demo-acme-key-0001").headers().firstValue("RateLimit"))
			.hasValue("\"GET /api/products\";r=198;t=1");
		assertThat(this.buckets.stats().entries()).isEqualTo(2);
	}

	/**
	 * A6 in the default mode: random paths are charged to {@code UNKNOWN}, one bucket per
	 * client (2 rps, capacity 4), however many paths are invented.
	 */
	@Test
	void requestWhenRandomPathsThenOneUnknownBucketPerClient() {
		SplittableRandom random = new SplittableRandom(11);
		int paths = 1000;
		int served = 0;
		int limited = 0;
		for (int i = 0; i < paths; i++) {
			String path = "/" + Long.toHexString(random.nextLong()) + "/api/" + i + "/" + Long.toHexString(random.nextLong());
			int status = ((i % 2 == 0) ? this.http.get(path)
					: this.http.send("POST", path, "{}", "X-API-Key", "demo-" + i)).statusCode();
			served += (status == 404 || status == 401) ? 1 : 0;
			limited += (status == 429) ? 1 : 0;
		}

		long held = this.buckets.stats().entries();
		String report = this.http
			.get("/actuator/ratelimit", "Authorization",
					"Basic " + Base64.getEncoder().encodeToString("admin:change-me".getBytes(StandardCharsets.UTF_8)))
			.body();
		String reported = report.replaceAll("(?s).*\"buckets\":\\{\"entries\":(\\d+).*", "$1");

		Figures.record("A6 UNKNOWN collapse", "%d random paths from one client: %d reached the application, "
				+ "%d got 429, %d bucket(s) held (actuator: %s)", paths, served, limited,
				held, reported);
		assertThat(served).isEqualTo(4);
		assertThat(limited).isEqualTo(paths - 4);
		assertThat(held).isEqualTo(1);
		// The admin endpoint reports the same store; its own request, the first of its
		// client there, is answered without a bucket.
		assertThat(reported).isEqualTo("1");
	}

}
