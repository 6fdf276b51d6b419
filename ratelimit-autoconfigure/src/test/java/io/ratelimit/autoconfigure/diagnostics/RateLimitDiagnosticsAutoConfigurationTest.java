package io.ratelimit.autoconfigure.diagnostics;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.ratelimit.autoconfigure.web.RateLimitFilter;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySource;
import io.ratelimit.core.policy.ReloadablePolicies;
import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.UsernamePasswordAuthenticationFilter;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each diagnostic on a context of its own: logged once, with its code and the property or
 * row to change, and not logged when the configuration is right.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitDiagnosticsAutoConfigurationTest {

	private static final PolicyRow DEFAULT = row("d1", "default", 5);

	private static final PolicyRow UNKNOWN = row("n1", "UNKNOWN", 1);

	private static final PolicyRow REPORTS = row("r1", "GET /api/reports/*", 5);

	private final WebApplicationContextRunner runner = runner();

	/**
	 * Returns a runner whose policy table holds the given rows from the start.
	 */
	private static WebApplicationContextRunner runner(PolicyRow... rows) {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
					WebMvcAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitDiagnosticsAutoConfiguration.class))
			.withUserConfiguration(ShopConfiguration.class)
			.withBean(PolicyTable.class, () -> new PolicyTable(List.of(rows)));
	}

	private static PolicyRow row(String id, String endpoint, int rps) {
		return new PolicyRow(id, endpoint, null, BigDecimal.valueOf(rps), null);
	}

	private static int count(CapturedOutput output, Diagnostic code) {
		return StringUtils.countOccurrencesOf(output.getAll(), "[RATELIMIT-" + code + "]");
	}

	private static String line(CapturedOutput output, Diagnostic code) {
		return output.getAll()
			.lines()
			.filter((line) -> line.contains("[RATELIMIT-" + code + "]"))
			.findFirst()
			.orElseThrow();
	}

	private static void send(AssertableWebApplicationContext context, String header, String value)
			throws ServletException, java.io.IOException {
		RateLimitFilter filter = (RateLimitFilter) context
			.getBean("rateLimitFilterRegistration", FilterRegistrationBean.class)
			.getFilter();
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/reports/7");
		request.setRemoteAddr("192.0.2.44");
		if (header != null) {
			request.addHeader(header, value);
		}
		filter.doFilter(request, new MockHttpServletResponse(), new MockFilterChain());
	}

	private static void table(AssertableWebApplicationContext context, PolicyRow... rows) {
		context.getBean(PolicyTable.class).rows.set(List.of(rows));
	}

	@Test
	void startupWhenLoginEndpointServedByNothingThenW011NamesIt(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.login.endpoints=POST /api/orders=username, POST /api/logon=username")
			.run((context) -> {
				assertThat(count(output, Diagnostic.W011)).isOne();
				assertThat(line(output, Diagnostic.W011)).contains("'POST /api/logon'", "ratelimit.login.endpoints");
			});
	}

	@Test
	void startupWhenGroupNamesTemplateNoHandlerServesThenW016NamesItOnce(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.groups.writes=POST /api/orders, POST /api/order")
			.run((context) -> {
				context.getBean(ReloadablePolicies.class).reload();
				assertThat(count(output, Diagnostic.W016)).isOne();
				assertThat(line(output, Diagnostic.W016)).contains("ratelimit.groups.writes", "'POST /api/order'");
			});
	}

	@Test
	void startupWhenEveryGroupTemplateServedThenNoW016(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.groups.reads=GET /api/reports/*, POST /api/orders")
			.run((context) -> assertThat(count(output, Diagnostic.W016)).isZero());
	}

	@Test
	void startupWhenLoginEndpointProcessedBySpringSecurityFormLoginThenNoW011(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.login.endpoints=POST /login=username")
			.withBean(SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE,
							new UsernamePasswordAuthenticationFilter((authentication) -> authentication)))
			.run((context) -> assertThat(count(output, Diagnostic.W011)).isZero());
	}

	@Test
	void startupWhenLimiterAfterSecurityAndFormLoginProcessesTheLoginThenW011SaysItNeverArrives(
			CapturedOutput output) {
		this.runner
			.withPropertyValues("ratelimit.login.endpoints=POST /login=username",
					"ratelimit.filter.position=after-security")
			.withBean(SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE,
							new UsernamePasswordAuthenticationFilter((authentication) -> authentication)))
			.run((context) -> assertThat(line(output, Diagnostic.W011)).contains("'POST /login'",
					"ratelimit.filter.position=before-security"));
	}

	@Test
	void reloadWhenRowNamesALoginServedByAFilterThenAccepted(CapturedOutput output) {
		runner(DEFAULT, UNKNOWN, row("l1", "POST /login", 1))
			.withPropertyValues("ratelimit.login.endpoints=POST /login=username")
			.run((context) -> {
				context.getBean(ReloadablePolicies.class).reload();

				assertThat(context.getBean(ReloadablePolicies.class).current().rejected()).isEmpty();
				assertThat(count(output, Diagnostic.W006)).isZero();
			});
	}

	@Test
	void startupWhenSpringSecurityProcessesAnotherPathThenW011(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.login.endpoints=POST /signin=username")
			.withBean(SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE,
							new UsernamePasswordAuthenticationFilter((authentication) -> authentication)))
			.run((context) -> assertThat(line(output, Diagnostic.W011)).contains("'POST /signin'"));
	}

	@Test
	void runWhenConfigurationRightThenNoWarning(CapturedOutput output) {
		runner(DEFAULT, UNKNOWN, REPORTS, row("o1", "POST /api/orders", 1))
			.withPropertyValues("ratelimit.client-ip.trusted-proxies=10.0.0.0/8,2001:db8::/32",
					"ratelimit.weights=GET /api/reports/*=5", "server.forward-headers-strategy=none")
			.run((context) -> {
				context.getBean(ReloadablePolicies.class).reload();
				send(context, "X-Forwarded-For", "198.51.100.23");

				assertThat(context.getBean(ReloadablePolicies.class).current().rejected()).isEmpty();
				assertThat(output.getAll()).doesNotContain("[RATELIMIT-W");
			});
	}

	@Test
	void onDecisionWhenForwardingHeadersAndNoTrustedProxyThenW001Once(CapturedOutput output) {
		this.runner.run((context) -> {
			send(context, "X-Forwarded-For", "198.51.100.23");
			send(context, "X-Forwarded-For", "198.51.100.24");
			send(context, "Forwarded", "for=198.51.100.25");

			assertThat(count(output, Diagnostic.W001)).isOne();
			assertThat(line(output, Diagnostic.W001)).contains("WARN")
				.contains("untrusted peer carried X-Forwarded-For")
				.contains("ratelimit.client-ip.trusted-proxies")
				.doesNotContain("198.51.100.23")
				.doesNotContain("192.0.2.44");
		});
	}

	@Test
	void onDecisionWhenOnlyForwardedHeaderThenW001NamesIt(CapturedOutput output) {
		this.runner.run((context) -> {
			send(context, "Forwarded", "for=198.51.100.25");

			assertThat(line(output, Diagnostic.W001)).contains("carried Forwarded");
		});
	}

	@Test
	void onDecisionWhenNoForwardingHeaderOrProxiesTrustedThenNoW001(CapturedOutput output) {
		this.runner.run((context) -> send(context, null, null));
		this.runner.withPropertyValues("ratelimit.client-ip.trusted-proxies=10.0.0.0/8")
			.run((context) -> send(context, "X-Forwarded-For", "198.51.100.23"));

		assertThat(count(output, Diagnostic.W001)).isZero();
	}

	@Test
	void startupWhenTrustedRangeTooWideThenW002OncePerRange(CapturedOutput output) {
		this.runner
			.withPropertyValues("ratelimit.client-ip.trusted-proxies=0.0.0.0/0,::/0,10.0.0.0/7,10.0.0.0/8,"
					+ "fd00::/8,2000::/7")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(count(output, Diagnostic.W002)).isEqualTo(4);
				assertThat(output.getAll()).contains("trusted-proxies contains '0.0.0.0/0'")
					.contains("trusted-proxies contains '::/0'")
					.contains("trusted-proxies contains '10.0.0.0/7'")
					.contains("trusted-proxies contains '2000::/7'")
					.doesNotContain("contains '10.0.0.0/8'")
					.doesNotContain("contains 'fd00::/8'");
			});
	}

	@Test
	void startupWhenForwardHeadersStrategyNativeThenW003(CapturedOutput output) {
		this.runner.withPropertyValues("server.forward-headers-strategy=native").run((context) -> {
			assertThat(count(output, Diagnostic.W003)).isOne();
			assertThat(line(output, Diagnostic.W003)).contains("server.forward-headers-strategy is 'native'")
				.contains("RemoteIpValve")
				.contains("server.forward-headers-strategy=none")
				.contains("ratelimit.client-ip.trusted-proxies");
		});
	}

	@Test
	void startupWhenForwardHeadersStrategyFrameworkThenW003(CapturedOutput output) {
		this.runner.withPropertyValues("server.forward-headers-strategy=FRAMEWORK").run((context) -> {
			assertThat(count(output, Diagnostic.W003)).isOne();
			assertThat(line(output, Diagnostic.W003)).contains("'framework'").contains("ForwardedHeaderFilter");
		});
	}

	@Test
	void startupWhenStrategyUnsetOnCloudPlatformThenW003(CapturedOutput output) {
		this.runner.withPropertyValues("spring.main.cloud-platform=kubernetes").run((context) -> {
			assertThat(count(output, Diagnostic.W003)).isOne();
			assertThat(line(output, Diagnostic.W003)).contains("not set, and on KUBERNETES");
		});
	}

	@Test
	void startupWhenStrategyNoneOrUnsetThenNoW003(CapturedOutput output) {
		this.runner.withPropertyValues("server.forward-headers-strategy=none").run((context) -> {
		});
		this.runner.run((context) -> {
		});

		assertThat(count(output, Diagnostic.W003)).isZero();
	}

	@Test
	void reloadWhenDefaultAndUnknownRowsMissingThenW004OncePerRowNotPerReload(CapturedOutput output) {
		this.runner.run((context) -> {
			table(context, REPORTS);
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();
			policies.reload();

			assertThat(count(output, Diagnostic.W004)).isEqualTo(2);
			assertThat(output.getAll()).contains("no 'default' row").contains("ratelimit.policy.default-rps (10 ")
				.contains("no 'UNKNOWN' row").contains("ratelimit.policy.unknown-rps (2 ");
		});
	}

	@Test
	void reloadWhenProblemFixedAndBackThenWarnedAgain(CapturedOutput output) {
		this.runner.run((context) -> {
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			table(context, UNKNOWN);
			policies.reload();
			table(context, UNKNOWN, DEFAULT);
			policies.reload();
			table(context, UNKNOWN);
			policies.reload();

			// Once for the empty table at startup, once when the row disappeared again.
			assertThat(StringUtils.countOccurrencesOf(output.getAll(), "no 'default' row")).isEqualTo(2);
		});
	}

	@Test
	void reloadWhenWeightExceedsCapacityOfApplyingRowThenW005NamesRowAndEntry(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.weights=GET /api/reports/*=5").run((context) -> {
			table(context, DEFAULT, UNKNOWN, row("r2", "GET /api/reports/*", 2),
					new PolicyRow("r3", "GET /api/reports/*", "acme", BigDecimal.valueOf(10), null));
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();

			assertThat(count(output, Diagnostic.W005)).isOne();
			assertThat(line(output, Diagnostic.W005)).contains("weight 5 of 'GET /api/reports/*'")
				.contains("entry 'GET /api/reports/*=5'")
				.contains("capacity of 4 tokens of row r2")
				.contains("rps_limit 2 x burst factor 2")
				.contains("at least 2.5");
		});
	}

	@Test
	void reloadWhenWeightExceedsDefaultRowThenW005NamesTheDefaultRow(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.weights=GET /api/reports/*=5").run((context) -> {
			table(context, row("d2", "default", 1), UNKNOWN);
			context.getBean(ReloadablePolicies.class).reload();

			assertThat(count(output, Diagnostic.W005)).isOne();
			assertThat(line(output, Diagnostic.W005)).contains("of row d2 (endpoint 'default'");
		});
	}

	@Test
	void reloadWhenRowNamesTemplateTheApplicationLacksThenRejectedAndW006Once(CapturedOutput output) {
		this.runner.run((context) -> {
			table(context, DEFAULT, UNKNOWN, row("x9", "GET /api/nothing", 3), row("o1", "POST /api/orders", 1));
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();

			assertThat(policies.current().rejected()).singleElement()
				.satisfies((rejected) -> assertThat(rejected.reason())
					.isEqualTo("the application has no endpoint 'GET /api/nothing'"));
			assertThat(policies.current().policies()).extracting((policy) -> policy.origin()).contains("row o1");
			assertThat(count(output, Diagnostic.W006)).isOne();
			assertThat(line(output, Diagnostic.W006)).contains("Policy row x9 names the endpoint 'GET /api/nothing'");
		});
	}

	@Test
	void reloadWhenHourlyLayerLooserThanThePerSecondRateThenW014NamesIt(CapturedOutput output) {
		this.runner.run((context) -> {
			// 5 per second with burst 2 (10 tokens) admits at most 18,010 an hour: 20,000 never binds.
			table(context, DEFAULT, UNKNOWN,
					PolicyRow.layered("h1", "default", null, "per-hour", "ENDPOINT", null, 20_000, "PT1H", "POINTS"),
					PolicyRow.layered("h2", "default", null, "per-minute", "ENDPOINT", null, 100, "PT1M", "POINTS"));
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();

			assertThat(count(output, Diagnostic.W014)).isOne();
			assertThat(line(output, Diagnostic.W014)).contains(
					"Policy row h1 (limit 'per-hour' of 'default', project_id NULL: q=20000, w=3600) can never refuse")
				.contains("counts against d1 (the endpoint's own limit of 'default', project_id NULL: q=10, w=2)");
		});
	}

	@Test
	void reloadWhenTenantPlanTableNamesAPlanNoRowIsForThenW015NamesThePlanOnce(CapturedOutput output) {
		this.runner.run((context) -> {
			table(context, DEFAULT, UNKNOWN, row("f1", "default", 2).forPlan("free"));
			context.getBean(PolicyTable.class).tenantPlans
				.set(Map.of("acme", "free", "globex", "fre", "initech", "fre", "hooli", "pro"));
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();

			assertThat(count(output, Diagnostic.W015)).isEqualTo(2);
			assertThat(output.getAll()).contains("puts 2 tenant(s), such as 'globex', on the plan 'fre', but no policy "
					+ "row of rate_limit_policy is for that plan")
				.contains("puts 1 tenant(s), such as 'hooli', on the plan 'pro'")
				.doesNotContain("on the plan 'free'");
		});
	}

	@Test
	void reloadWhenBatchedRowsHoldFewerTokensThanMakeACreditThenW018AndW019NameThemOnce(CapturedOutput output) {
		this.runner.run((context) -> {
			// Burst factor 2: 4 tokens (credit 0.4 of a request), 6 tokens, 20 tokens (credit 2), and
			// 1 token refilled every 5 s (slow: credit stays 0.1 of a request, cold keys wait).
			table(context, DEFAULT, UNKNOWN,
					new PolicyRow("b1", "GET /api/reports/*", null, BigDecimal.valueOf(2), null, "GLOBAL_BATCHED"),
					new PolicyRow("b2", "POST /api/orders", null, BigDecimal.valueOf(3), null, "GLOBAL_BATCHED"),
					new PolicyRow("b3", "GET /api/reports/*", "acme", BigDecimal.valueOf(10), null, "GLOBAL_BATCHED"),
					new PolicyRow("b4", "POST /api/orders", "globex", new BigDecimal("0.2"), null, "GLOBAL_BATCHED"),
					new PolicyRow("g1", "POST /api/orders", "acme", BigDecimal.valueOf(2), null, "GLOBAL"));
			ReloadablePolicies policies = context.getBean(ReloadablePolicies.class);
			policies.reload();
			policies.reload();

			assertThat(count(output, Diagnostic.W018)).isOne();
			assertThat(line(output, Diagnostic.W018)).contains("b1 (the endpoint's own limit of 'GET /api/reports/*'")
				.contains("b2 (the endpoint's own limit of 'POST /api/orders'")
				.doesNotContain("b3 (")
				.doesNotContain("b4 (")
				.doesNotContain("g1 (")
				.contains("hold fewer than 10 tokens")
				.contains("up to 2 x n requests beyond the limit");
			assertThat(count(output, Diagnostic.W019)).isOne();
			assertThat(line(output, Diagnostic.W019)).contains("b4 (the endpoint's own limit of 'POST /api/orders', project_id 'globex'")
				.doesNotContain("b1 (")
				.doesNotContain("b2 (")
				.doesNotContain("b3 (")
				.doesNotContain("g1 (")
				.contains("take more than a second to refill one")
				.contains("a replica's first request of a key waits for Redis");
		});
	}

	@Test
	void reloadWhenBatchedCreditIsOffThenNoW018OrW019(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.redis.batch.cold-key-share=0").run((context) -> {
			table(context, DEFAULT, UNKNOWN,
					new PolicyRow("b1", "GET /api/reports/*", null, BigDecimal.valueOf(2), null, "GLOBAL_BATCHED"),
					new PolicyRow("b4", "POST /api/orders", "globex", new BigDecimal("0.2"), null, "GLOBAL_BATCHED"));
			context.getBean(ReloadablePolicies.class).reload();

			assertThat(count(output, Diagnostic.W018)).isZero();
			assertThat(count(output, Diagnostic.W019)).isZero();
		});
	}

	@Test
	void reloadWhenPlanRowAndGlobalRowOfOneShapeThenNoW014ForTheirDifferentRequests(CapturedOutput output) {
		this.runner.run((context) -> {
			table(context, DEFAULT, UNKNOWN, row("f1", "default", 5).forPlan("free"));
			context.getBean(ReloadablePolicies.class).reload();

			assertThat(count(output, Diagnostic.W014)).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@Import(ShopController.class)
	static class ShopConfiguration {

		@Bean
		PolicySource testPolicySource(PolicyTable table) {
			return new PolicySource() {

				@Override
				public List<PolicyRow> load() {
					return table.rows.get();
				}

				@Override
				public Map<String, String> loadTenantPlans() {
					return table.tenantPlans.get();
				}

			};
		}

	}

	/**
	 * The rows the policy source reads; tests change them between reloads.
	 */
	static class PolicyTable {

		final AtomicReference<List<PolicyRow>> rows;

		final AtomicReference<Map<String, String>> tenantPlans = new AtomicReference<>(Map.of());

		PolicyTable(List<PolicyRow> rows) {
			this.rows = new AtomicReference<>(rows);
		}

	}

	@RestController
	static class ShopController {

		@GetMapping("/api/reports/{id}")
		String report(@PathVariable String id) {
			return id;
		}

		@PostMapping("/api/orders")
		String order() {
			return "ordered";
		}

	}

}
