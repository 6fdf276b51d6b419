package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Bad rows are reported with the row and the reason, skipped, and never stop the others.
 */
class PolicyValidationTest {

	private static final EndpointTemplate USERS = EndpointTemplate.of("GET", "/api/users/*");

	private static final PolicySettings SETTINGS = PolicySettings.of(new BigDecimal("7"), new BigDecimal("3"),
			BigDecimal.ONE);

	@ParameterizedTest(name = "[{index}] {0} / {1} / {2} / {3}")
	@CsvSource(delimiter = '|', nullValues = "NULL", textBlock = """
			NULL                     | NULL | 5        | ENFORCE | endpoint is missing
			'  '                     | NULL | 5        | ENFORCE | endpoint is missing
			/api/users/*             | NULL | 5        | ENFORCE | expected 'METHOD /path'
			get /api/users/*         | NULL | 5        | ENFORCE | upper-case letters
			GET api/users            | NULL | 5        | ENFORCE | must start with '/'
			GET /api/users/{id}      | NULL | 5        | ENFORCE | must not contain '{'
			GET /api/users/**x       | NULL | 5        | ENFORCE | '''**'' must be a whole path segment'
			HEAD /api/users/*        | NULL | 5        | ENFORCE | HEAD is charged as GET
			GET /api/users/*         | NULL | 0        | ENFORCE | must be positive
			GET /api/users/*         | NULL | -3.000   | ENFORCE | must be positive, but was -3 (use mode OFF
			GET /api/users/*         | NULL | 0.0000001| ENFORCE | below the minimum
			GET /api/users/*         | NULL | 1000001  | ENFORCE | above the maximum
			GET /api/users/*         | NULL | NULL     | ENFORCE | rps_limit is missing
			GET /api/users/*         | NULL | 5        | BLOCK   | mode must be ENFORCE, SHADOW or OFF
			GET /api/users/*         | ' '  | 5        | ENFORCE | project_id must be NULL
			UNKNOWN                  | acme | 5        | ENFORCE | UNKNOWN policies are global
			""")
	void ofWhenRowIsInvalidThenRejectedWithReasonAndOthersLoad(String endpoint, String tenant, String rps, String mode,
			String reason) {
		PolicyRow bad = new PolicyRow("13", endpoint, tenant, (rps != null) ? new BigDecimal(rps) : null, mode);
		PolicyRow good = new PolicyRow("14", "default", null, new BigDecimal("9"), null);

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(bad, good), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> {
			assertThat(rejected.row()).isEqualTo(bad);
			assertThat(rejected.reason()).contains(reason);
			assertThat(rejected.toString()).startsWith("row 13 ");
		});
		assertThat(snapshot.policies()).extracting(Policy::origin).containsExactly("row 14");
		assertThat(snapshot.resolve(USERS, null).origin()).isEqualTo("row 14");
	}

	@Test
	void ofWhenScopeUnknownThenRejectedAndKnownScopesParsed() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				new PolicyRow("1", "GET /api/users/*", null, BigDecimal.ONE, null, "REGIONAL"),
				new PolicyRow("2", "GET /api/users/*", "acme", BigDecimal.ONE, null, " global "),
				new PolicyRow("3", "default", null, BigDecimal.ONE, null, null)), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).isEqualTo("scope must be LOCAL, GLOBAL or GLOBAL_BATCHED, but was 'REGIONAL'"));
		assertThat(snapshot.resolve(USERS, "acme").scope()).isEqualTo(PolicyScope.GLOBAL);
		assertThat(snapshot.resolve(USERS, null).scope()).isEqualTo(PolicyScope.LOCAL);
	}

	@Test
	void ofWhenTemplateUnknownToApplicationThenRejected() {
		PolicySettings settings = SETTINGS.withKnownEndpoints(USERS::equals);
		PolicyRow typo = new PolicyRow("1", "GET /api/user/*", null, BigDecimal.ONE, null);
		PolicyRow known = new PolicyRow("2", "GET /api/users/*", null, BigDecimal.ONE, null);

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(typo, known), settings, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).contains("no endpoint 'GET /api/user/*'"));
		assertThat(snapshot.policies()).extracting(Policy::origin).containsExactly("row 2");
	}

	@Test
	void ofWhenDuplicateRowsThenStricterAppliesAndOthersReported() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				new PolicyRow("1", "GET /api/users/*", "acme", new BigDecimal("50"), null),
				new PolicyRow("2", "GET /api/users/*", "acme", new BigDecimal("5"), null),
				new PolicyRow("3", "GET /api/users/*", "acme", new BigDecimal("1"), "OFF"),
				new PolicyRow("4", "GET /api/users/*", null, new BigDecimal("50"), null)), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.resolve(USERS, "acme").origin()).isEqualTo("row 2");
		assertThat(snapshot.rejected()).extracting((rejected) -> rejected.row().id()).containsExactlyInAnyOrder("1", "3");
		assertThat(snapshot.rejected()).allSatisfy((rejected) -> assertThat(rejected.reason())
			.isEqualTo("duplicate of row 2 for the same endpoint and project_id; the stricter row 2 applies"));
	}

	@Test
	void ofWhenModeGivenInAnyCaseThenParsed() {
		PolicySnapshot snapshot = PolicySnapshot.of(
				List.of(new PolicyRow("1", "GET /api/users/*", null, new BigDecimal("0.083333"), " shadow ")), SETTINGS,
				1, Instant.EPOCH);

		Policy policy = snapshot.resolve(USERS, null);
		assertThat(policy.mode()).isEqualTo(PolicyMode.SHADOW);
		assertThat(policy.rps()).isEqualByComparingTo("0.083333");
	}

	@Test
	void settingsWhenBuiltInRateInvalidThenMessageNamesIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PolicySettings.of(BigDecimal.ZERO, BigDecimal.ONE, BigDecimal.ONE))
			.withMessageStartingWith("Invalid built-in default rate: rate must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PolicySettings.of(BigDecimal.ONE, BigDecimal.ONE, new BigDecimal("0.5")))
			.withMessage("The burst factor must be between 1 and 1000, but was 0.5");
	}

	@ParameterizedTest(name = "[{index}] {0} / {1} / {2} / {3} / {4}")
	@CsvSource(delimiter = '|', nullValues = "NULL", textBlock = """
			default          | NULL   | API      | NULL    | 10 | PT1H   | POINTS   | a group or the API, or counts requests, needs a limit_name
			default          | NULL   | ENDPOINT | NULL    | 10 | PT1H   | REQUESTS | needs a limit_name
			default          | hourly | WORLD    | NULL    | 10 | PT1H   | POINTS   | must be ENDPOINT, GROUP or API, but was 'WORLD'
			default          | hourly | API      | NULL    | 10 | PT1H   | TOKENS   | must be POINTS, REQUESTS or IN_FLIGHT, but was 'TOKENS'
			GET /api/users/* | hourly | API      | NULL    | 10 | PT1H   | POINTS   | so endpoint must be 'default'
			default          | hourly | GROUP    | NULL    | 10 | PT1H   | POINTS   | endpoint_group is missing for a GROUP limit
			default          | hourly | GROUP    | writers | 10 | PT1H   | POINTS   | no group of endpoints is named 'writers'
			default          | hourly | API      | users   | 10 | PT1H   | POINTS   | endpoint_group must be NULL unless applies_to is GROUP
			UNKNOWN          | hourly | ENDPOINT | NULL    | 10 | PT1H   | POINTS   | UNKNOWN has one limit, its own
			default          | hourly | API      | NULL    | 0  | PT1H   | POINTS   | limit_count must be positive, but was 0
			default          | hourly | API      | NULL    | 10 | 1 hour | POINTS   | an ISO-8601 duration such as PT1H, but was '1 hour'
			default          | hourly | API      | NULL    | 10 | PT0.5S | POINTS   | (longer periods are calendar quotas, not buckets), but was PT0.5S
			default          | hourly | API      | NULL    | 10 | P32D   | POINTS   | must be between PT1S and PT744H
			default          | hourly | API      | NULL    | 10 | NULL   | POINTS   | limit_count and limit_window go together
			default          | hourly | API      | NULL    | 3600000001 | PT1H | POINTS | is 1000000.000278 per second, above the maximum of 1000000
			default          | hourly | API      | NULL    | 1000000001 | P31D | POINTS | limit_count 1000000001 is above the maximum of 1000000000
			""")
	void ofWhenLayeredRowIsInvalidThenRejectedWithReason(String endpoint, String name, String appliesTo, String group,
			Long count, String window, String counts, String reason) {
		PolicySettings settings = SETTINGS.withGroups(EndpointGroups.of(Map.of("users", Set.of(USERS))));
		PolicyRow bad = new PolicyRow("13", endpoint, null, null, null, null, name, appliesTo, group, count, window, null,
				counts);

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(bad), settings, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).contains(reason));
	}

	@ParameterizedTest(name = "[{index}] {0} / {1} / {2} / {3} / {4} / {5}")
	@CsvSource(delimiter = '|', nullValues = "NULL", textBlock = """
			NULL      | NULL | 10      | NULL | NULL | ENFORCE        | needs a limit_name
			in-flight | 2    | 10      | NULL | NULL | ENFORCE        | rps_limit, limit_window and burst must be NULL
			in-flight | NULL | 10      | PT1S | NULL | ENFORCE        | rps_limit, limit_window and burst must be NULL
			in-flight | NULL | 10      | NULL | 20   | ENFORCE        | rps_limit, limit_window and burst must be NULL
			in-flight | NULL | NULL    | NULL | NULL | ENFORCE        | limit_count is missing: the most requests in progress at once
			in-flight | NULL | 0       | NULL | NULL | ENFORCE        | limit_count must be positive, but was 0 (use mode OFF for no limit)
			in-flight | NULL | -4      | NULL | NULL | ENFORCE        | limit_count must be positive, but was -4
			in-flight | NULL | 1000001 | NULL | NULL | ENFORCE        | limit_count 1000001 is above the maximum of 1000000 requests in flight
			in-flight | NULL | 10      | NULL | NULL | GLOBAL_BATCHED | an IN_FLIGHT limit is LOCAL or GLOBAL
			""")
	void ofWhenInFlightRowIsInvalidThenRejectedWithReason(String name, String rps, Long count, String window,
			Long burst, String scope, String reason) {
		PolicyRow bad = new PolicyRow("13", "default", null, (rps != null) ? new BigDecimal(rps) : null, null, scope,
				name, "API", null, count, window, burst, "in_flight");

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(bad), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).contains(reason));
	}

	@Test
	void ofWhenInFlightRowIsValidThenALayeredLimitOfItsCountWithoutWindow() {
		PolicyRow row = new PolicyRow("1", "default", null, null, null, "GLOBAL", "in-flight", "API", null, 10L, null,
				null, "IN_FLIGHT");

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(row), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.resolveLayered(USERS, null)).singleElement().satisfies((policy) -> {
			assertThat(policy.isInFlight()).isTrue();
			assertThat(policy.unit()).isEqualTo(LimitUnit.IN_FLIGHT);
			assertThat(policy.limits().quota()).isEqualTo(10);
			assertThat(policy.isGlobal()).isTrue();
			assertThat(policy.policyItem()).isEqualTo("\"in-flight\";q=10;qu=\"concurrent-requests\"");
		});
	}

	@Test
	void ofWhenRowsOfOneLimitNameMixInFlightAndRateThenTheLaterIsRejected() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				new PolicyRow("1", "default", null, null, null, null, "busy", "API", null, 10L, null, null, "IN_FLIGHT"),
				PolicyRow.layered("2", "default", "acme", "busy", "API", null, 100, "PT1H", "REQUESTS")), SETTINGS, 1,
				Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> {
			assertThat(rejected.row().id()).isEqualTo("2");
			assertThat(rejected.reason())
				.isEqualTo("limit 'busy' counts requests in flight in row 1, so it cannot count a rate here");
		});
	}

	@Test
	void ofWhenBucketWouldTakeCenturiesToFillThenRowRejectedAndOthersLoad() {
		// A billion-token bucket refilled at one token per 31 days.
		PolicyRow slow = new PolicyRow("1", "default", null, null, null, null, "monthly", "API", null, 1L, "P31D",
				1_000_000_000L, null);
		PolicyRow good = PolicyRow.layered("2", "default", null, "hourly", "API", null, 100, "PT1H", "REQUESTS");

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(slow, good), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).startsWith("the limit cannot be represented: "));
		assertThat(snapshot.resolveLayered(USERS, null)).extracting(Policy::origin).containsExactly("row 2");
	}

	@Test
	void ofWhenRowStatesBothRpsAndCountThenRejected() {
		PolicyRow both = new PolicyRow("1", "default", null, BigDecimal.ONE, null, null, "hourly", "API", null, 10L,
				"PT1H", null, null);

		assertThat(PolicySnapshot.of(List.of(both), SETTINGS, 1, Instant.EPOCH).rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason())
				.isEqualTo("a row states rps_limit or limit_count per limit_window (with burst), not both"));
	}

	@Test
	void ofWhenRowsOfOneLimitNameDisagreeOnTargetThenTheLaterIsRejected() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				PolicyRow.layered("1", "default", null, "hourly", "API", null, 100, "PT1H", "REQUESTS"),
				PolicyRow.layered("2", "default", "acme", "hourly", "ENDPOINT", null, 100, "PT1H", "REQUESTS")), SETTINGS,
				1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> {
			assertThat(rejected.row().id()).isEqualTo("2");
			assertThat(rejected.toString()).startsWith("row 2 (default, project_id=acme, limit_name=hourly): ");
			assertThat(rejected.reason())
				.isEqualTo("limit 'hourly' applies to the whole API in row 1, so it cannot apply to each endpoint here");
		});
	}

	@Test
	void ofWhenDuplicateLayeredRowsThenStricterApplies() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				PolicyRow.layered("1", "default", null, "hourly", "API", null, 100, "PT1H", "REQUESTS"),
				PolicyRow.layered("2", "default", null, "hourly", "API", null, 50, "PT1H", "REQUESTS"),
				PolicyRow.layered("3", "default", null, "per-minute", "API", null, 50, "PT1M", "REQUESTS")), SETTINGS, 1,
				Instant.EPOCH);

		assertThat(snapshot.resolveLayered(USERS, null)).extracting(Policy::origin).containsExactly("row 2", "row 3");
		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> assertThat(rejected.reason())
			.isEqualTo("duplicate of row 2 for the same endpoint, project_id and limit_name; the stricter row 2 applies"));
	}

	@ParameterizedTest(name = "[{index}] {0} / {1} / {2}")
	@CsvSource(delimiter = '|', nullValues = "NULL", textBlock = """
			GET /api/users/* | acme | free | a row is for a tenant (project_id) or for a plan, not both
			GET /api/users/* | NULL | ' '  | plan must be NULL or name a plan, but was blank
			UNKNOWN          | NULL | free | UNKNOWN policies are global (unknown endpoints are limited by network identity alone), so plan must be NULL
			""")
	void ofWhenPlanColumnIsInvalidThenRejectedWithReason(String endpoint, String tenant, String plan, String reason) {
		PolicyRow bad = new PolicyRow("13", endpoint, tenant, new BigDecimal("5"), null).forPlan(plan);

		PolicySnapshot snapshot = PolicySnapshot.of(List.of(bad), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> {
			assertThat(rejected.reason()).startsWith(reason);
			assertThat(rejected.toString()).contains("plan=" + plan);
		});
		assertThat(snapshot.policies()).isEmpty();
	}

	@Test
	void ofWhenPlanNameIsTooLongThenRejected() {
		PolicyRow bad = new PolicyRow("1", "default", null, new BigDecimal("5"), null).forPlan("p".repeat(65));

		assertThat(PolicySnapshot.of(List.of(bad), SETTINGS, 1, Instant.EPOCH).rejected()).singleElement()
			.satisfies((rejected) -> assertThat(rejected.reason()).isEqualTo("plan must be at most 64 characters"));
	}

	@Test
	void ofWhenDuplicatePlanRowsThenStricterAppliesAndAPlanRowIsNoDuplicateOfTheGlobalOne() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				new PolicyRow("1", "default", null, new BigDecimal("10"), null).forPlan("free"),
				new PolicyRow("2", "default", null, new BigDecimal("5"), null).forPlan("free"),
				new PolicyRow("3", "default", null, new BigDecimal("20"), null)), SETTINGS, 1, Instant.EPOCH);

		assertThat(snapshot.policies()).extracting(Policy::origin).containsExactly("row 2", "row 3");
		assertThat(snapshot.policies().get(0).plan()).isEqualTo("free");
		assertThat(snapshot.rejected()).singleElement().satisfies((rejected) -> assertThat(rejected.reason())
			.isEqualTo("duplicate of row 2 for the same endpoint and plan; the stricter row 2 applies"));
	}

}
