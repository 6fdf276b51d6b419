package io.ratelimit.core.policy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.ratelimit.core.endpoint.EndpointTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The precedence chain of DESIGN.md 3.3, one test per link, and tenant isolation.
 */
class PolicySnapshotTest {

	private static final EndpointTemplate USERS = EndpointTemplate.of("GET", "/api/users/*");

	private static final EndpointTemplate ORDERS = EndpointTemplate.of("POST", "/api/orders");

	private static final PolicySettings SETTINGS = PolicySettings.of(new BigDecimal("7"), new BigDecimal("3"),
			new BigDecimal("2"));

	private static PolicyRow row(String id, String endpoint, String tenant, String rps) {
		return new PolicyRow(id, endpoint, tenant, new BigDecimal(rps), null);
	}

	/** Every link of the chain present, each with a distinct rate. */
	private static final List<PolicyRow> FULL_CHAIN = List.of(
			row("1", "GET /api/users/*", "acme", "1"),
			row("2", "GET /api/users/*", null, "2"),
			row("3", "default", "acme", "4"),
			row("4", "default", null, "5"),
			row("5", "UNKNOWN", null, "6"));

	private static PolicySnapshot snapshot(List<PolicyRow> rows) {
		return PolicySnapshot.of(rows, SETTINGS, 1, Instant.EPOCH);
	}

	private static PolicySnapshot fullChainWithout(String... ids) {
		List<PolicyRow> rows = new ArrayList<>(FULL_CHAIN);
		rows.removeIf((row) -> Arrays.asList(ids).contains(row.id()));
		return snapshot(rows);
	}

	@Test
	void ofWhenRowsSayTheSameForManyTenantsThenPoliciesShareTheirTermsAndAnswerAsBefore() {
		PolicySnapshot snapshot = snapshot(List.of(row("17", "GET /api/users/*", "acme", "10.000000"),
				row("18", "GET /api/users/*", "globex", "10.000000"), row("x-9", "GET /api/users/*", null, "10")));

		Policy acme = snapshot.resolve(USERS, "acme");
		Policy globex = snapshot.resolve(USERS, "globex");
		Policy global = snapshot.resolve(USERS, null);

		assertThat(acme.policyItem()).isEqualTo("\"GET /api/users/*\";q=20;w=2").isSameAs(globex.policyItem());
		assertThat(acme.quotedName()).isEqualTo("\"GET /api/users/*\"").isSameAs(globex.quotedName());
		assertThat(acme.limits()).isSameAs(globex.limits());
		assertThat(acme.rps().toPlainString()).isEqualTo("10.000000");
		assertThat(global.rps().toPlainString()).isEqualTo("10");
		assertThat(List.of(acme.origin(), globex.origin(), global.origin())).containsExactly("row 17", "row 18",
				"row x-9");
		assertThat(acme).isNotEqualTo(globex);
		assertThat(acme.toString()).isEqualTo("Policy[endpoint=GET /api/users/*, tenant=acme, rps=10.000000, "
				+ "mode=ENFORCE, scope=LOCAL, limits=BucketLimits[rps=10.000000, capacity=20.0], origin=row 17]");
	}

	@Test
	void resolveWhenTemplateAndTenantRowExistsThenItWins() {
		assertThat(fullChainWithout().resolve(USERS, "acme").origin()).isEqualTo("row 1");
	}

	@Test
	void resolveWhenNoTenantRowThenTemplateGlobalRow() {
		assertThat(fullChainWithout("1").resolve(USERS, "acme").origin()).isEqualTo("row 2");
	}

	@Test
	void resolveWhenNoTemplateRowsThenDefaultTenantRow() {
		assertThat(fullChainWithout("1", "2").resolve(USERS, "acme").origin()).isEqualTo("row 3");
	}

	@Test
	void resolveWhenOnlyDefaultGlobalRowThenItApplies() {
		assertThat(fullChainWithout("1", "2", "3").resolve(USERS, "acme").origin()).isEqualTo("row 4");
	}

	@Test
	void resolveWhenNoRowAtAllThenBuiltInDefaultNeverNoLimit() {
		Policy policy = snapshot(List.of()).resolve(USERS, "acme");

		assertThat(policy.isBuiltIn()).isTrue();
		assertThat(policy.endpoint()).isEqualTo(EndpointTemplate.DEFAULT);
		assertThat(policy.rps()).isEqualByComparingTo("7");
		assertThat(policy.mode()).isEqualTo(PolicyMode.ENFORCE);
	}

	@Test
	void resolveWhenTenantRowExistsButRequestIsAnonymousThenGlobalRow() {
		assertThat(fullChainWithout().resolve(USERS, null).origin()).isEqualTo("row 2");
		assertThat(fullChainWithout("2").resolve(USERS, null).origin()).isEqualTo("row 4");
	}

	@Test
	void resolveWhenTemplateTenantRowExistsThenDefaultTenantRowDoesNotOverrideIt() {
		// (template, global) outranks (default, tenant): the endpoint's own limit comes first.
		assertThat(fullChainWithout("1").resolve(USERS, "acme").rps()).isEqualByComparingTo("2");
	}

	@Test
	void resolveWhenUnknownEndpointThenUnknownRowIgnoringTenantsAndDefaults() {
		assertThat(fullChainWithout().resolve(EndpointTemplate.UNKNOWN, "acme").origin()).isEqualTo("row 5");
	}

	@Test
	void resolveWhenUnknownEndpointWithoutRowThenBuiltInUnknownNotDefault() {
		Policy policy = fullChainWithout("5").resolve(EndpointTemplate.UNKNOWN, null);

		assertThat(policy.isBuiltIn()).isTrue();
		assertThat(policy.endpoint()).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(policy.rps()).isEqualByComparingTo("3");
	}

	@Test
	void resolveWhenOtherTenantHasOverrideThenItNeverApplies() {
		PolicySnapshot snapshot = snapshot(List.of(
				row("1", "GET /api/users/*", "acme", "100"),
				row("2", "default", "acme", "100"),
				row("3", "GET /api/users/*", null, "2")));

		assertThat(snapshot.resolve(USERS, "globex").origin()).isEqualTo("row 3");
		assertThat(snapshot.resolve(ORDERS, "globex").isBuiltIn()).isTrue();
		assertThat(snapshot.resolve(ORDERS, "acme").origin()).isEqualTo("row 2");
	}

	@Test
	void explainWhenChainWalkedThenListsEveryLinkTriedAndAgreesWithResolve() {
		PolicySnapshot snapshot = fullChainWithout("1", "2");

		PolicyResolution resolution = snapshot.explain(USERS, "acme");

		assertThat(resolution.chain()).extracting((link) -> link.endpoint() + "|" + link.tenant() + "|"
				+ ((link.found() != null) ? link.found().origin() : "none"))
			.containsExactly("GET /api/users/*|acme|none", "GET /api/users/*|null|none", "default|acme|row 3");
		assertThat(resolution.policy()).isSameAs(snapshot.resolve(USERS, "acme"));
	}

	@Test
	void explainWhenNothingMatchesThenEndsInBuiltInAfterFullChain() {
		PolicyResolution resolution = snapshot(List.of()).explain(USERS, "acme");

		assertThat(resolution.chain()).hasSize(4).allMatch((link) -> link.found() == null);
		assertThat(resolution.policy().isBuiltIn()).isTrue();
	}

	@Test
	void explainAgreesWithResolveForEveryCombination() {
		for (int mask = 0; mask < 32; mask++) {
			List<PolicyRow> rows = new ArrayList<>();
			for (int i = 0; i < FULL_CHAIN.size(); i++) {
				if ((mask & (1 << i)) != 0) {
					rows.add(FULL_CHAIN.get(i));
				}
			}
			PolicySnapshot snapshot = snapshot(rows);
			for (EndpointTemplate endpoint : List.of(USERS, ORDERS, EndpointTemplate.UNKNOWN)) {
				for (String tenant : Arrays.asList("acme", "globex", null)) {
					assertThat(snapshot.explain(endpoint, tenant).policy())
						.as("rows %s, %s, %s", rows, endpoint, tenant)
						.isSameAs(snapshot.resolve(endpoint, tenant));
				}
			}
		}
	}

	@Test
	void explainLayeredWhenTenantRowThenChainPerLimitEndsAtTheRowThatApplies() {
		PolicySettings settings = SETTINGS.withGroups(EndpointGroups.of(Map.of("writes", Set.of(ORDERS))));
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(
				PolicyRow.layered("1", "default", null, "hourly", "API", null, 5000, "PT1H", "REQUESTS"),
				PolicyRow.layered("2", "default", "acme", "hourly", "API", null, 9000, "PT1H", "REQUESTS"),
				PolicyRow.layered("3", "default", null, "per-minute", "ENDPOINT", null, 60, "PT1M", "POINTS"),
				PolicyRow.layered("4", "default", null, "content", "GROUP", "writes", 80, "PT1M", "REQUESTS")), settings, 1,
				Instant.EPOCH);

		List<PolicyResolution> forUsers = snapshot.explainLayered(USERS, "acme");

		assertThat(forUsers).extracting((resolution) -> resolution.policy().origin()).containsExactly("row 2", "row 3");
		assertThat(forUsers.get(0).chain()).extracting(PolicyResolution.Link::endpoint, PolicyResolution.Link::tenant)
			.containsExactly(tuple(EndpointTemplate.DEFAULT, "acme"));
		assertThat(forUsers.get(1).chain()).extracting(PolicyResolution.Link::endpoint, PolicyResolution.Link::tenant)
			.containsExactly(tuple(USERS, "acme"), tuple(USERS, null), tuple(EndpointTemplate.DEFAULT, "acme"),
					tuple(EndpointTemplate.DEFAULT, null));
		assertThat(snapshot.explainLayered(ORDERS, null)).extracting((resolution) -> resolution.policy().origin())
			.containsExactly("row 1", "row 3", "row 4");
		assertThat(snapshot.resolveLayered(ORDERS, "acme")).extracting(Policy::name)
			.containsExactly("hourly", "per-minute", "content");
	}

	@Test
	void resolveLayeredWhenNoLayeredRowThenEmpty() {
		PolicySnapshot snapshot = snapshot(List.of(row("1", "default", null, "1")));

		assertThat(snapshot.resolveLayered(USERS, "acme")).isEmpty();
		assertThat(snapshot.explainLayered(USERS, "acme")).isEmpty();
	}

	/** The chain with plan links: each row a distinct rate, plan rows for {@code free}. */
	private static final List<PolicyRow> PLAN_CHAIN = List.of(
			row("1", "GET /api/users/*", "acme", "1"),
			row("2", "GET /api/users/*", null, "2").forPlan("free"),
			row("3", "GET /api/users/*", null, "3"),
			row("4", "default", "acme", "4"),
			row("5", "default", null, "5").forPlan("free"),
			row("6", "default", null, "6"));

	private static PolicySnapshot planChainWithout(String... ids) {
		List<PolicyRow> rows = new ArrayList<>(PLAN_CHAIN);
		rows.removeIf((row) -> Arrays.asList(ids).contains(row.id()));
		return snapshot(rows);
	}

	@Test
	void resolveWithPlanWhenEveryLinkPresentThenTenantThenPlanThenGlobalPerEndpointThenDefault() {
		assertThat(planChainWithout().resolve(USERS, "acme", "free").origin()).isEqualTo("row 1");
		assertThat(planChainWithout("1").resolve(USERS, "acme", "free").origin()).isEqualTo("row 2");
		assertThat(planChainWithout("1", "2").resolve(USERS, "acme", "free").origin()).isEqualTo("row 3");
		assertThat(planChainWithout("1", "2", "3").resolve(USERS, "acme", "free").origin()).isEqualTo("row 4");
		assertThat(planChainWithout("1", "2", "3", "4").resolve(USERS, "acme", "free").origin()).isEqualTo("row 5");
		assertThat(planChainWithout("1", "2", "3", "4", "5").resolve(USERS, "acme", "free").origin())
			.isEqualTo("row 6");
		assertThat(planChainWithout("1", "2", "3", "4", "5", "6").resolve(USERS, "acme", "free").isBuiltIn()).isTrue();
	}

	@Test
	void resolveWhenRequestHasNoPlanOrAnotherPlanThenPlanRowsNeverApply() {
		PolicySnapshot snapshot = planChainWithout("1", "4");

		assertThat(snapshot.resolve(USERS, "globex").origin()).isEqualTo("row 3");
		assertThat(snapshot.resolve(USERS, "globex", "pro").origin()).isEqualTo("row 3");
		assertThat(snapshot.resolve(ORDERS, null, "pro").origin()).isEqualTo("row 6");
		assertThat(snapshot.resolve(ORDERS, null, "free").origin()).isEqualTo("row 5");
		assertThat(snapshot.resolve(EndpointTemplate.UNKNOWN, null, "free").isBuiltIn()).isTrue();
	}

	@Test
	void explainWithPlanThenListsThePlanLinksAndAgreesWithResolve() {
		PolicySnapshot snapshot = planChainWithout("1", "2", "3", "4");

		PolicyResolution resolution = snapshot.explain(USERS, "acme", "free");

		assertThat(resolution.plan()).isEqualTo("free");
		assertThat(resolution.chain()).extracting((link) -> link.endpoint() + "|" + link.tenant() + "|" + link.plan()
				+ "|" + ((link.found() != null) ? link.found().origin() : "none"))
			.containsExactly("GET /api/users/*|acme|null|none", "GET /api/users/*|null|free|none",
					"GET /api/users/*|null|null|none", "default|acme|null|none", "default|null|free|row 5");
		assertThat(resolution.policy()).isSameAs(snapshot.resolve(USERS, "acme", "free"));
	}

	@Test
	void explainWithPlanAgreesWithResolveForEveryCombination() {
		for (int mask = 0; mask < 64; mask++) {
			List<PolicyRow> rows = new ArrayList<>();
			for (int i = 0; i < PLAN_CHAIN.size(); i++) {
				if ((mask & (1 << i)) != 0) {
					rows.add(PLAN_CHAIN.get(i));
				}
			}
			PolicySnapshot snapshot = snapshot(rows);
			for (EndpointTemplate endpoint : List.of(USERS, ORDERS)) {
				for (String tenant : Arrays.asList("acme", "globex", null)) {
					for (String plan : Arrays.asList("free", "pro", null)) {
						assertThat(snapshot.explain(endpoint, tenant, plan).policy())
							.as("rows %s, %s, %s, %s", rows, endpoint, tenant, plan)
							.isSameAs(snapshot.resolve(endpoint, tenant, plan));
					}
				}
			}
		}
	}

	@Test
	void resolveLayeredWithPlanThenPlanRowBetweenTenantAndGlobalAndOffSwitchesTheLimitOff() {
		PolicySnapshot snapshot = snapshot(List.of(
				PolicyRow.layered("1", "default", null, "daily", "API", null, 1000, "P1D", "REQUESTS"),
				PolicyRow.layered("2", "default", null, "daily", "API", null, 100000, "P1D", "REQUESTS").forPlan("pro"),
				new PolicyRow("3", "default", null, null, "OFF", null, "daily", "API", null, 1L, "P1D", null,
						"REQUESTS", "enterprise"),
				PolicyRow.layered("4", "default", "acme", "daily", "API", null, 5000, "P1D", "REQUESTS")));

		assertThat(snapshot.resolveLayered(USERS, "globex", "pro")).extracting(Policy::origin).containsExactly("row 2");
		assertThat(snapshot.resolveLayered(USERS, "acme", "pro")).extracting(Policy::origin).containsExactly("row 4");
		assertThat(snapshot.resolveLayered(USERS, "acme", "enterprise")).extracting(Policy::origin)
			.containsExactly("row 4");
		assertThat(snapshot.resolveLayered(USERS, "globex", "enterprise")).isEmpty();
		assertThat(snapshot.resolveLayered(USERS, null, null)).extracting(Policy::origin).containsExactly("row 1");
		assertThat(snapshot.explainLayered(USERS, "globex", "enterprise")).singleElement()
			.satisfies((resolution) -> assertThat(resolution.chain())
				.extracting(PolicyResolution.Link::tenant, PolicyResolution.Link::plan)
				.containsExactly(tuple("globex", null), tuple(null, "enterprise")));
	}

	@Test
	void planOfWhenTheTableNamesTheTenantThenItOutranksTheCredentialsPlan() {
		PolicySnapshot snapshot = PolicySnapshot.of(List.of(), Map.of("acme", "free", "blank", " "), SETTINGS, 1,
				Instant.EPOCH);

		assertThat(snapshot.planOf("acme", "pro")).isEqualTo("free");
		assertThat(snapshot.planOf("globex", "pro")).isEqualTo("pro");
		assertThat(snapshot.planOf("globex", null)).isNull();
		assertThat(snapshot.planOf("blank", "pro")).isEqualTo("pro");
		assertThat(snapshot.planOf(null, null)).isNull();
		assertThat(snapshot.tenantPlans()).containsExactly(Map.entry("acme", "free"));
	}

}
