package io.ratelimit.autoconfigure;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;

import io.ratelimit.autoconfigure.layeredapp.LayeredApiApplication;
import io.ratelimit.autoconfigure.testsupport.Http;
import io.ratelimit.autoconfigure.testsupport.PostgresDatabase;
import io.ratelimit.autoconfigure.testsupport.RedisNamespace;
import io.ratelimit.autoconfigure.testsupport.TestPostgres;
import io.ratelimit.autoconfigure.testsupport.TestRedis;
import io.ratelimit.core.RateLimiter;
import io.ratelimit.core.identity.KeyedHasher;
import io.ratelimit.core.identity.ReloadableApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plan's {@code GLOBAL} row on two replicas: a tenant the tenant-to-plan table puts on
 * Free draws on one bucket in Redis, whichever replica serves it, with Free's count and not
 * the count for everyone; a tenant of its own row keeps that row.
 */
class PlansGlobalEndToEndTest {

	private static final String HASH_SECRET = "an-api-key-hash-secret-for-tests";

	@RegisterExtension
	static final PostgresDatabase database = TestPostgres.newDatabase();

	@RegisterExtension
	static final RedisNamespace redis = TestRedis.newNamespace();

	@Test
	void requestsWhenPlansRowIsGlobalThenReplicasShareTheTenantsBucketAtThePlansCount() throws Exception {
		try (ConfigurableApplicationContext first = replica(); ConfigurableApplicationContext second = replica()) {
			try (Connection connection = database.connect(); Statement sql = connection.createStatement()) {
				sql.execute("""
						INSERT INTO rate_limit_policy
						    (endpoint, project_id, plan, limit_name, applies_to, limit_count, limit_window, counts, scope)
						VALUES
						    ('default', NULL,   NULL,   'hourly', 'API', 100, 'PT1H', 'REQUESTS', 'GLOBAL'),
						    ('default', NULL,   'free', 'hourly', 'API', 3,   'PT1H', 'REQUESTS', 'GLOBAL'),
						    ('default', 'acme', NULL,   'hourly', 'API', 5,   'PT1H', 'REQUESTS', 'GLOBAL')
						""");
				sql.execute("INSERT INTO rate_limit_tenant_plan (project_id, plan) VALUES ('initech', 'free'), "
						+ "('acme', 'free')");
				KeyedHasher hasher = KeyedHasher.withSecret(HASH_SECRET);
				sql.execute("INSERT INTO rate_limit_api_key (key_hash, principal, project_id) VALUES ('"
						+ hasher.hashHex("initech-key") + "', 'initech-user', 'initech'), ('"
						+ hasher.hashHex("acme-key") + "', 'acme-user', 'acme')");
			}
			for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { first, second }) {
				assertThat(context.getBean(RateLimiter.class).policies().reload().succeeded()).isTrue();
				assertThat(context.getBean(ReloadableApiKeys.class).reload()).isTrue();
			}
			Http one = http(first);
			Http two = http(second);

			assertThat(one.get("/api/repos/1", "X-API-Key", "initech-key").statusCode()).isEqualTo(200);
			assertThat(two.get("/api/repos/2", "X-API-Key", "initech-key").statusCode()).isEqualTo(200);
			assertThat(one.get("/api/status", "X-API-Key", "initech-key").statusCode()).isEqualTo(200);
			HttpResponse<String> refused = two.get("/api/repos/3", "X-API-Key", "initech-key");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"hourly\";r=0;t=1200");

			int acme = 0;
			for (int i = 0; i < 8; i++) {
				Http replica = (i % 2 == 0) ? one : two;
				acme += (replica.get("/api/repos/" + i, "X-API-Key", "acme-key").statusCode() == 200) ? 1 : 0;
			}
			assertThat(acme).isEqualTo(5);
			assertThat(redis.keys(redis.prefix())).isNotEmpty();
		}
	}

	private static ConfigurableApplicationContext replica() {
		return new SpringApplicationBuilder(LayeredApiApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.user(),
				"--spring.datasource.password=" + database.password(), "--spring.flyway.enabled=false",
				"--spring.data.redis.url=" + redis.url(), "--ratelimit.redis.key-prefix=" + redis.prefix(),
				"--ratelimit.key-secret=shared-by-every-replica-0123456789", "--ratelimit.policy.refresh-interval=1h",
				"--ratelimit.api-key.hash-secret=" + HASH_SECRET, "--ratelimit.policy.default-rps=100",
				"--spring.jmx.enabled=false", "--spring.jpa.open-in-view=false");
	}

	private static Http http(ConfigurableApplicationContext context) {
		return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
	}

}
