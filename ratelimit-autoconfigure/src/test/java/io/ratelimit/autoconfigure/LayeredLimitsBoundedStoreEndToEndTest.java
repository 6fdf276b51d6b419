package io.ratelimit.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;

import io.micrometer.core.instrument.MeterRegistry;
import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.core.RateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An API-wide bucket per caller is a bucket like any other: held in the same bounded store,
 * counted by {@code ratelimit.buckets.entries}, and evicted when callers outnumber
 * {@code ratelimit.buckets.maximum-entries}, so layered limits cannot grow memory without
 * bound however many addresses a flood comes from.
 */
class LayeredLimitsBoundedStoreEndToEndTest {

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@Test
	void requestsWhenCallersOutnumberTheStoreThenApiWideBucketsCountAndTheStoreStaysBounded() throws Exception {
		try (ConfigurableApplicationContext app = new SpringApplicationBuilder(LayeredApiApplication.class).run(
				"--server.port=0", "--spring.datasource.url=" + database.url(),
				"--spring.datasource.username=" + database.user(), "--spring.datasource.password=" + database.password(),
				"--spring.flyway.enabled=false", "--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false",
				"--ratelimit.policy.refresh-interval=1h", "--ratelimit.buckets.maximum-entries=64",
				"--ratelimit.client-ip.trusted-proxies=127.0.0.1/32,::1/128")) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("DELETE FROM rate_limit_policy");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, rps_limit) VALUES ('default', 100)");
				sql.execute("INSERT INTO rate_limit_policy (endpoint, limit_name, applies_to, limit_count, "
						+ "limit_window, counts) VALUES ('default', 'hourly', 'API', 60, 'PT1H', 'REQUESTS')");
			}
			assertThat(app.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
			Http http = new Http(((WebServerApplicationContext) app).getWebServer().getPort());
			MeterRegistry meters = app.getBean(MeterRegistry.class);

			// Twice each: a caller's first request is answered without a bucket of its own.
			for (int caller = 0; caller < 20; caller++) {
				for (int i = 0; i < 2; i++) {
					assertThat(http.get("/api/repos/1", "X-Forwarded-For", "198.51.100." + caller).statusCode())
						.isEqualTo(200);
				}
			}
			// The endpoint's bucket and the API-wide one of each of the 20 callers: more than one
			// a caller. (Not exactly 40: the filter of first requests may forget a caller.)
			assertThat(meters.get("ratelimit.buckets.entries").gauge().value()).isGreaterThan(20)
				.isLessThanOrEqualTo(40);

			for (int caller = 0; caller < 300; caller++) {
				for (int i = 0; i < 2; i++) {
					String address = "203.0." + (caller / 250) + "." + (caller % 250);
					assertThat(http.get("/api/repos/1", "X-Forwarded-For", address).statusCode()).isEqualTo(200);
				}
			}
			assertThat(meters.get("ratelimit.buckets.entries").gauge().value()).isLessThanOrEqualTo(64);
			assertThat(meters.get("ratelimit.buckets.evictions").functionCounter().count()).isPositive();
		}
	}

}
