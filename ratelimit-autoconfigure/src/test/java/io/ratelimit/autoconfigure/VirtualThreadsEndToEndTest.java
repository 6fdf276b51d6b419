package io.ratelimit.autoconfigure;

import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.ratelimit.autoconfigure.testapp.TestShopApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.web.RateLimitFilterListener;
import io.ratelimit.core.Decision;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.servlet.http.HttpServletRequest;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter in an application that serves requests on virtual threads
 * ({@code spring.threads.virtual.enabled=true}): concurrent requests of one client are
 * decided on virtual threads, the bucket admits exactly its capacity, and no virtual
 * thread parks while pinned to its carrier in the limiter's code.
 * <p>
 * Only on JDK 21 and later: virtual threads do not exist on JDK 17, where Spring Boot
 * ignores the property and the application keeps its platform threads.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@SpringBootTest(classes = { TestShopApplication.class, VirtualThreadsEndToEndTest.Listening.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.threads.virtual.enabled=true",
				"ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128", "ratelimit.burst-factor=100",
				"spring.jpa.open-in-view=false" })
@DirtiesContext
class VirtualThreadsEndToEndTest {

	/** Requests sent at once, well above the bucket's capacity. */
	private static final int REQUESTS = 64;

	/** 0.1 rps with a burst factor of 100: 10 tokens, and the next one 10 seconds away. */
	private static final int CAPACITY = 10;

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		database.register(registry);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ReloadablePolicies policies;

	@Autowired
	private ThreadsSeen threads;

	@Test
	void getWhenConcurrentOnVirtualThreadsThenExactlyTheCapacityAdmittedWithoutPinning(@TempDir Path dir)
			throws Exception {
		try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
			sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('GET /api/users/*', 0.1)");
		}
		assertThat(this.policies.reload().succeeded()).isTrue();
		Http http = new Http(this.port);
		// A first burst loads the classes of both answers: a virtual thread loading a class
		// is pinned on every JDK, once per class, whatever the code it runs.
		List<Integer> warmUp = burst(http, "198.51.100.76");
		List<Integer> statuses;

		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			statuses = burst(http, "198.51.100.77");
			recording.stop();
			Path file = dir.resolve("pinned.jfr");
			recording.dump(file);
			assertThat(pinnedInLimiter(file)).isEmpty();
		}

		for (List<Integer> client : List.of(warmUp, statuses)) {
			assertThat(client).filteredOn((status) -> status == 200).hasSize(CAPACITY);
			assertThat(client).filteredOn((status) -> status == 429).hasSize(REQUESTS - CAPACITY);
		}
		assertThat(this.threads.kinds()).containsExactly("virtual");
	}

	/** Sends {@value #REQUESTS} requests of one client at once; their statuses. */
	private static List<Integer> burst(Http http, String client) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(REQUESTS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < REQUESTS; i++) {
				String path = "/api/users/" + i;
				responses.add(clients.submit(() -> {
					start.await();
					return http.get(path, "X-Forwarded-For", client);
				}));
			}
			start.countDown();
			List<Integer> statuses = new ArrayList<>();
			for (Future<HttpResponse<String>> response : responses) {
				statuses.add(response.get(30, TimeUnit.SECONDS).statusCode());
			}
			return statuses;
		}
		finally {
			clients.shutdownNow();
		}
	}

	/** The stacks of pinned parks that pass through the limiter's code. */
	private static List<String> pinnedInLimiter(Path file) throws Exception {
		List<String> pinned = new ArrayList<>();
		if (!Files.exists(file)) {
			return pinned;
		}
		for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
			if (event.getStackTrace() == null) {
				continue;
			}
			List<RecordedFrame> frames = event.getStackTrace().getFrames();
			if (frames.stream().anyMatch((frame) -> frame.getMethod().getType().getName().startsWith("io.ratelimit."))) {
				pinned.add(frames.toString());
			}
		}
		return pinned;
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Listening {

		@Bean
		ThreadsSeen threadsSeen() {
			return new ThreadsSeen();
		}

	}

	/** Records the kind of thread each decision of the limiter was made on. */
	static class ThreadsSeen implements RateLimitFilterListener {

		private static final Method IS_VIRTUAL = isVirtual();

		private final Set<String> kinds = ConcurrentHashMap.newKeySet();

		@Override
		public void onDecision(HttpServletRequest request, Decision decision) {
			try {
				this.kinds.add((Boolean) IS_VIRTUAL.invoke(Thread.currentThread()) ? "virtual" : "platform");
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}

		Set<String> kinds() {
			return this.kinds;
		}

		// Thread.isVirtual() is JDK 21 API; the tests compile for JDK 17 and run this class
		// only on 21 and later.
		private static Method isVirtual() {
			try {
				return Thread.class.getMethod("isVirtual");
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException("virtual threads need JDK 21 or later", ex);
			}
		}

	}

}
